"""save when rows in: a match whose table chose to have each round saved once every seated row is sent

Revision ID: c8e1a3f5d7b9
Revises: b5d7f9a1c3e2
Create Date: 2026-12-02 17:20:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c8e1a3f5d7b9'
down_revision = 'b5d7f9a1c3e2'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('match', schema=None) as batch_op:
        batch_op.add_column(sa.Column('save_when_rows_in', sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade():
    with op.batch_alter_table('match', schema=None) as batch_op:
        batch_op.drop_column('save_when_rows_in')
