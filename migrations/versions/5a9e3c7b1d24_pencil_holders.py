"""the phones holding a match's pencil and its creator's right to take it back

Revision ID: 5a9e3c7b1d24
Revises: 3c7d1e9a5b20
Create Date: 2026-12-07 12:00:00.000000

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "5a9e3c7b1d24"
down_revision = "3c7d1e9a5b20"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.add_column(sa.Column("scorekeeper_phone", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("owner_phone", sa.String(length=64), nullable=True))


def downgrade():
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.drop_column("owner_phone")
        batch_op.drop_column("scorekeeper_phone")
