"""the round-entry tool's state kept with the match (a Pazaak set in progress)

Revision ID: b3c1e2f4a5d6
Revises: c1a7e0f3b9d2
Create Date: 2026-12-01 09:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b3c1e2f4a5d6'
down_revision = 'c1a7e0f3b9d2'
branch_labels = None
depends_on = None


# Plain ALTER TABLE, not a batch: rebuilding "match" in SQLite would drop the old table, and with
# foreign keys on, that deletes every seat and round through their ON DELETE CASCADE. SQLite has
# added and dropped columns in place since 3.35.


def upgrade():
    op.add_column('match', sa.Column('round_in_progress', sa.JSON(), nullable=True))


def downgrade():
    op.drop_column('match', 'round_in_progress')
