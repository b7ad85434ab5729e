"""sent row keys: the key a seated phone made for each send of its row, so a send repeated is stored once

Revision ID: d2f4b6a8c0e1
Revises: c8e1a3f5d7b9
Create Date: 2026-12-02 17:40:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'd2f4b6a8c0e1'
down_revision = 'c8e1a3f5d7b9'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('sent_row', schema=None) as batch_op:
        batch_op.add_column(sa.Column('client_key', sa.String(length=36), nullable=True))


def downgrade():
    with op.batch_alter_table('sent_row', schema=None) as batch_op:
        batch_op.drop_column('client_key')
