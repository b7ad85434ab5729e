"""players' ratings per game: the book, the current ratings and their steps

Revision ID: e5f2a9c3d1b4
Revises: d4e8a1c2f7b3
Create Date: 2026-12-01 18:45:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'e5f2a9c3d1b4'
down_revision = 'd4e8a1c2f7b3'
branch_labels = None
depends_on = None


def upgrade():
    # No book yet for any game: each game's ratings are built from its finished matches on their first read.
    op.create_table('rating_book',
    sa.Column('game', sa.String(length=20), nullable=False),
    sa.Column('stale', sa.Boolean(), nullable=False),
    sa.Column('rated', sa.Integer(), nullable=False),
    sa.Column('last_finished_at', sa.DateTime(), nullable=True),
    sa.Column('last_match_id', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('game', name=op.f('pk_rating_book'))
    )
    op.create_table('rating',
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('game', sa.String(length=20), nullable=False),
    sa.Column('mu', sa.Double(), nullable=False),
    sa.Column('sigma', sa.Double(), nullable=False),
    sa.Column('matches', sa.Integer(), nullable=False),
    sa.Column('recent', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['player.id'], name=op.f('fk_rating_player_id_player'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('player_id', 'game', name=op.f('pk_rating'))
    )
    op.create_table('rating_step',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game', sa.String(length=20), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('match_id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('mu', sa.Double(), nullable=False),
    sa.Column('sigma', sa.Double(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['player.id'], name=op.f('fk_rating_step_player_id_player'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_rating_step'))
    )
    op.create_index('ix_rating_step_player_game_seq', 'rating_step', ['player_id', 'game', 'seq'], unique=False)
    op.create_index('ix_rating_step_game', 'rating_step', ['game'], unique=False)


def downgrade():
    op.drop_index('ix_rating_step_game', table_name='rating_step')
    op.drop_index('ix_rating_step_player_game_seq', table_name='rating_step')
    op.drop_table('rating_step')
    op.drop_table('rating')
    op.drop_table('rating_book')
