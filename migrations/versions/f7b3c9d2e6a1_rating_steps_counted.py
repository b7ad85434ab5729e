"""ratings' steps counted per player: the player's matches and wins so far at each step

Revision ID: f7b3c9d2e6a1
Revises: e5f2a9c3d1b4
Create Date: 2026-12-01 22:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'f7b3c9d2e6a1'
down_revision = 'e5f2a9c3d1b4'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('rating', sa.Column('wins', sa.Integer(), nullable=False, server_default='0'))
    op.add_column('rating_step', sa.Column('n', sa.Integer(), nullable=False, server_default='0'))
    op.add_column('rating_step', sa.Column('wins', sa.Integer(), nullable=False, server_default='0'))
    op.drop_index('ix_rating_step_player_game_seq', table_name='rating_step')
    op.create_index('ix_rating_step_player_game_n', 'rating_step', ['player_id', 'game', 'n'], unique=False)
    # The counts are filled by rating every game again, which the next start does for a stale book.
    op.execute(sa.text("UPDATE rating_book SET stale = :stale").bindparams(stale=True))


def downgrade():
    op.drop_index('ix_rating_step_player_game_n', table_name='rating_step')
    op.create_index('ix_rating_step_player_game_seq', 'rating_step', ['player_id', 'game', 'seq'], unique=False)
    op.drop_column('rating_step', 'wins')
    op.drop_column('rating_step', 'n')
    op.drop_column('rating', 'wins')
