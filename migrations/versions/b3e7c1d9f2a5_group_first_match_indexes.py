"""group-first match indexes: a request reads one group's matches, found by their group before their status, game or time

Revision ID: b3e7c1d9f2a5
Revises: a9d3f6c2b8e4
Create Date: 2026-12-02 04:20:00.000000

"""

from alembic import op


# revision identifiers, used by Alembic.
revision = "b3e7c1d9f2a5"
down_revision = "a9d3f6c2b8e4"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.drop_index("ix_match_status_started")
        batch_op.drop_index("ix_match_game_started")
        batch_op.create_index("ix_match_group_started", ["group_id", "started_at"], unique=False)
        batch_op.create_index("ix_match_group_status_started", ["group_id", "status", "started_at"], unique=False)
        batch_op.create_index("ix_match_group_game_started", ["group_id", "game", "started_at"], unique=False)


def downgrade():
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.drop_index("ix_match_group_game_started")
        batch_op.drop_index("ix_match_group_status_started")
        batch_op.drop_index("ix_match_group_started")
        batch_op.create_index("ix_match_game_started", ["game", "started_at"], unique=False)
        batch_op.create_index("ix_match_status_started", ["status", "started_at"], unique=False)
