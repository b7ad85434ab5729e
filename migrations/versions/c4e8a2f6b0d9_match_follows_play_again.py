"""match follows: the match Play again started this one from, whose seated phones follow to this one

Revision ID: c4e8a2f6b0d9
Revises: 0a1d5e7c9b3f
Create Date: 2026-12-04 02:30:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c4e8a2f6b0d9'
down_revision = '0a1d5e7c9b3f'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('match', schema=None) as batch_op:
        batch_op.add_column(sa.Column('follows_id', sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f('ix_match_follows_id'), ['follows_id'], unique=False)
        batch_op.create_foreign_key(
            batch_op.f('fk_match_follows_id_match'), 'match', ['follows_id'], ['id'], ondelete='SET NULL'
        )


def downgrade():
    with op.batch_alter_table('match', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_match_follows_id_match'), type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_match_follows_id'))
        batch_op.drop_column('follows_id')
