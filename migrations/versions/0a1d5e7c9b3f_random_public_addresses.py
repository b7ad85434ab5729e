"""random public addresses: each match, player and phone of a group gets a random public id for its address;
the largest ids of the rows from before are kept, the only ones that answer to their old sqids address

Revision ID: 0a1d5e7c9b3f
Revises: c7e1a4f9b2d6
Create Date: 2026-12-04 02:20:00.000000

"""
import secrets

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0a1d5e7c9b3f'
down_revision = 'c7e1a4f9b2d6'
branch_labels = None
depends_on = None

# As companion.models.new_public_id (a migration keeps its own copy: the app's may change later).
ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
LENGTH = 11
TABLES = ("match", "player", "member")
BATCH = 500


def _new_id() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def upgrade():
    bind = op.get_bind()
    op.create_table(
        'old_addresses',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('match_max', sa.Integer(), nullable=False),
        sa.Column('player_max', sa.Integer(), nullable=False),
        sa.Column('member_max', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_old_addresses')),
    )
    largest = {}
    for name in TABLES:
        with op.batch_alter_table(name, schema=None) as batch_op:
            batch_op.add_column(sa.Column('public_id', sa.String(length=LENGTH), nullable=True))
        table = sa.table(name, sa.column('id', sa.Integer), sa.column('public_id', sa.String))
        ids = [row.id for row in bind.execute(sa.select(table.c.id).order_by(table.c.id))]
        largest[name] = ids[-1] if ids else 0
        # Drawn at random, a batch at a time; the unique index made next would refuse a repeat.
        update = table.update().where(table.c.id == sa.bindparam('row_id')).values(public_id=sa.bindparam('new'))
        for start in range(0, len(ids), BATCH):
            bind.execute(update, [{'row_id': row_id, 'new': _new_id()} for row_id in ids[start:start + BATCH]])
        with op.batch_alter_table(name, schema=None) as batch_op:
            batch_op.alter_column('public_id', existing_type=sa.String(length=LENGTH), nullable=False)
            batch_op.create_unique_constraint(op.f(f'uq_{name}_public_id'), ['public_id'])
    old = sa.table('old_addresses', sa.column('id', sa.Integer), sa.column('match_max', sa.Integer),
                   sa.column('player_max', sa.Integer), sa.column('member_max', sa.Integer))
    bind.execute(old.insert().values(id=1, match_max=largest['match'], player_max=largest['player'],
                                     member_max=largest['member']))


def downgrade():
    for name in TABLES:
        with op.batch_alter_table(name, schema=None) as batch_op:
            batch_op.drop_constraint(op.f(f'uq_{name}_public_id'), type_='unique')
            batch_op.drop_column('public_id')
    op.drop_table('old_addresses')
