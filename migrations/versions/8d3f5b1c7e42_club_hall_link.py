"""club evening: the hall link's generation (renewing the hall screen's link ends the old one)

Revision ID: 8d3f5b1c7e42
Revises: 661460047dca
Create Date: 2026-12-05 09:55:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '8d3f5b1c7e42'
down_revision = '661460047dca'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('club_evening', schema=None) as batch_op:
        batch_op.add_column(sa.Column('hall_link', sa.Integer(), server_default='0', nullable=False))


def downgrade():
    with op.batch_alter_table('club_evening', schema=None) as batch_op:
        batch_op.drop_column('hall_link')
