"""seats taken by phones: the phone sitting at each seat, and what it calls itself

Revision ID: a2c4e6f8b1d3
Revises: b3e7c1d9f2a5
Create Date: 2026-12-02 12:30:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'a2c4e6f8b1d3'
down_revision = 'b3e7c1d9f2a5'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('phone', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('phone_label', sa.String(length=80), nullable=False, server_default=''))
        batch_op.create_unique_constraint(batch_op.f('uq_seat_match_id_phone'), ['match_id', 'phone'])


def downgrade():
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('uq_seat_match_id_phone'), type_='unique')
        batch_op.drop_column('phone_label')
        batch_op.drop_column('phone')
