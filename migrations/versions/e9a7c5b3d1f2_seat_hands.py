"""seat hands: the side cards a seated Pazaak phone noted, kept only while the match is played

Revision ID: e9a7c5b3d1f2
Revises: d2f4b6a8c0e1
Create Date: 2026-12-02 22:45:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'e9a7c5b3d1f2'
down_revision = 'd2f4b6a8c0e1'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('hand', sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('hand')
