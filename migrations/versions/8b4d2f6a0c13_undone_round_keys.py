"""an undone round's key kept in the change log

Revision ID: 8b4d2f6a0c13
Revises: 5a9e3c7b1d24
Create Date: 2026-12-07 12:30:00.000000

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "8b4d2f6a0c13"
down_revision = "5a9e3c7b1d24"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("round_change", schema=None) as batch_op:
        batch_op.add_column(sa.Column("client_key", sa.String(length=36), nullable=True))


def downgrade():
    with op.batch_alter_table("round_change", schema=None) as batch_op:
        batch_op.drop_column("client_key")
