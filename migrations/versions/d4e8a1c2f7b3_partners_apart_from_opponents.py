"""each seat keeps its team, and the head to head counts partners apart from opponents

Revision ID: d4e8a1c2f7b3
Revises: b3c1e2f4a5d6
Create Date: 2026-12-01 15:00:00

The new columns are filled by the next start, which rescores every match whose caches are
older than services.matches.CACHE_VERSION (2): that sets each seat's team and adds the
partners to the head to head. Caches marked newer (a database downgraded and upgraded
again) are marked older here, so they are rescored too.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'd4e8a1c2f7b3'
down_revision = 'b3c1e2f4a5d6'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('team', sa.String(length=40), nullable=True))
    with op.batch_alter_table('rivalry', schema=None) as batch_op:
        batch_op.add_column(sa.Column('partnered', sa.Integer(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('partnered_won', sa.Integer(), server_default='0', nullable=False))
    op.execute('UPDATE "match" SET cache_version = 1 WHERE cache_version > 1')


def downgrade():
    with op.batch_alter_table('rivalry', schema=None) as batch_op:
        batch_op.drop_column('partnered_won')
        batch_op.drop_column('partnered')
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('team')
