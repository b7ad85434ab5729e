"""club turn's clock (its end, or the time left while paused) and a table's call for the arbiter

Revision ID: 3c7d1e9a5b20
Revises: 8d3f5b1c7e42
Create Date: 2026-12-05 10:00:00.000000

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "3c7d1e9a5b20"
down_revision = "8d3f5b1c7e42"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("club_evening", schema=None) as batch_op:
        batch_op.add_column(sa.Column("clock_ends_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("clock_left_ms", sa.Integer(), nullable=True))
    with op.batch_alter_table("club_table", schema=None) as batch_op:
        batch_op.add_column(sa.Column("call", sa.String(length=80), nullable=True))
        batch_op.add_column(sa.Column("called_at", sa.DateTime(), nullable=True))


def downgrade():
    with op.batch_alter_table("club_table", schema=None) as batch_op:
        batch_op.drop_column("called_at")
        batch_op.drop_column("call")
    with op.batch_alter_table("club_evening", schema=None) as batch_op:
        batch_op.drop_column("clock_left_ms")
        batch_op.drop_column("clock_ends_at")
