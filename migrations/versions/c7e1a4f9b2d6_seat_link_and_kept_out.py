"""seat link and kept out: the seat link's generation (renewed, the old one stops) and the phones a Free keeps out

Revision ID: c7e1a4f9b2d6
Revises: e9a7c5b3d1f2
Create Date: 2026-12-04 02:10:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c7e1a4f9b2d6'
down_revision = 'e9a7c5b3d1f2'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('match', schema=None) as batch_op:
        batch_op.add_column(sa.Column('seat_link', sa.Integer(), server_default='0', nullable=False))
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('kept_out', sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('kept_out')
    with op.batch_alter_table('match', schema=None) as batch_op:
        batch_op.drop_column('seat_link')
