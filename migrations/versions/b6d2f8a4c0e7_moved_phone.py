"""moved phone: the previous version's unsigned credentials moved to new ones, by hash and time

Revision ID: b6d2f8a4c0e7
Revises: c4e8a2f6b0d9
Create Date: 2026-12-05 10:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b6d2f8a4c0e7'
down_revision = 'c4e8a2f6b0d9'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'moved_phone',
        sa.Column('old_hash', sa.String(length=64), nullable=False),
        sa.Column('moved_at', sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint('old_hash', name=op.f('pk_moved_phone')),
    )


def downgrade():
    op.drop_table('moved_phone')
