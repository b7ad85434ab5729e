"""club evening: evenings, entrants, turns' tables, the arbiter's log; a group's table cards key

Revision ID: 661460047dca
Revises: b6d2f8a4c0e7
Create Date: 2026-12-05 06:36:03.533273

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '661460047dca'
down_revision = 'b6d2f8a4c0e7'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('club_evening',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=40), nullable=False),
    sa.Column('game', sa.String(length=20), nullable=False),
    sa.Column('pairs', sa.Boolean(), nullable=False),
    sa.Column('turns', sa.Integer(), nullable=False),
    sa.Column('hands', sa.Integer(), nullable=False),
    sa.Column('rules', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('turn', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('public_id', sa.String(length=11), nullable=False),
    sa.Column('group_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['group_id'], ['play_group.id'], name=op.f('fk_club_evening_group_id_play_group'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_club_evening')),
    sa.UniqueConstraint('public_id', name=op.f('uq_club_evening_public_id'))
    )
    with op.batch_alter_table('club_evening', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_club_evening_group_id'), ['group_id'], unique=False)

    op.create_table('club_entrant',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('evening_id', sa.Integer(), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('players', sa.JSON(), nullable=False),
    sa.Column('club', sa.String(length=40), nullable=True),
    sa.Column('joined_turn', sa.Integer(), nullable=False),
    sa.Column('withdrawn_after', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['evening_id'], ['club_evening.id'], name=op.f('fk_club_entrant_evening_id_club_evening'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_club_entrant')),
    sa.UniqueConstraint('evening_id', 'number', name=op.f('uq_club_entrant_evening_id_number'))
    )
    with op.batch_alter_table('club_entrant', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_club_entrant_evening_id'), ['evening_id'], unique=False)

    op.create_table('club_log',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('evening_id', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(), nullable=False),
    sa.Column('by', sa.String(length=64), nullable=False),
    sa.Column('action', sa.String(length=20), nullable=False),
    sa.Column('turn', sa.Integer(), nullable=True),
    sa.Column('table', sa.Integer(), nullable=True),
    sa.Column('entrant', sa.Integer(), nullable=True),
    sa.Column('before', sa.JSON(), nullable=True),
    sa.Column('after', sa.JSON(), nullable=True),
    sa.Column('note', sa.String(length=200), nullable=False),
    sa.ForeignKeyConstraint(['evening_id'], ['club_evening.id'], name=op.f('fk_club_log_evening_id_club_evening'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_club_log'))
    )
    with op.batch_alter_table('club_log', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_club_log_evening_id'), ['evening_id'], unique=False)

    op.create_table('club_table',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('evening_id', sa.Integer(), nullable=False),
    sa.Column('turn', sa.Integer(), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('sides', sa.JSON(), nullable=False),
    sa.Column('match_id', sa.Integer(), nullable=True),
    sa.Column('state', sa.String(length=10), nullable=False),
    sa.Column('points', sa.JSON(), nullable=True),
    sa.Column('hands_played', sa.Integer(), nullable=True),
    sa.Column('given', sa.JSON(), nullable=True),
    sa.Column('pencil_phone', sa.String(length=64), nullable=True),
    sa.Column('confirmed_by', sa.String(length=64), nullable=True),
    sa.Column('confirmed_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['evening_id'], ['club_evening.id'], name=op.f('fk_club_table_evening_id_club_evening'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['match_id'], ['match.id'], name=op.f('fk_club_table_match_id_match'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_club_table')),
    sa.UniqueConstraint('evening_id', 'turn', 'number', name=op.f('uq_club_table_evening_id_turn_number'))
    )
    with op.batch_alter_table('club_table', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_club_table_evening_id'), ['evening_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_club_table_match_id'), ['match_id'], unique=False)

    with op.batch_alter_table('play_group', schema=None) as batch_op:
        batch_op.add_column(sa.Column('cards_key', sa.String(length=32), nullable=True))
        batch_op.create_unique_constraint(batch_op.f('uq_play_group_cards_key'), ['cards_key'])



def downgrade():
    with op.batch_alter_table('play_group', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('uq_play_group_cards_key'), type_='unique')
        batch_op.drop_column('cards_key')

    with op.batch_alter_table('club_table', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_club_table_match_id'))
        batch_op.drop_index(batch_op.f('ix_club_table_evening_id'))

    op.drop_table('club_table')
    with op.batch_alter_table('club_log', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_club_log_evening_id'))

    op.drop_table('club_log')
    with op.batch_alter_table('club_entrant', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_club_entrant_evening_id'))

    op.drop_table('club_entrant')
    with op.batch_alter_table('club_evening', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_club_evening_group_id'))

    op.drop_table('club_evening')
