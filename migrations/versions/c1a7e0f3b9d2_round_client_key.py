"""each round keeps the key its phone made for the save, so a retry is stored once

Revision ID: c1a7e0f3b9d2
Revises: 8ae3aaba7e80
Create Date: 2026-12-01 08:45:00

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c1a7e0f3b9d2'
down_revision = '8ae3aaba7e80'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('round', schema=None) as batch_op:
        batch_op.add_column(sa.Column('client_key', sa.String(length=36), nullable=True))
        batch_op.create_unique_constraint(batch_op.f('uq_round_match_id_client_key'), ['match_id', 'client_key'])


def downgrade():
    with op.batch_alter_table('round', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('uq_round_match_id_client_key'), type_='unique')
        batch_op.drop_column('client_key')
