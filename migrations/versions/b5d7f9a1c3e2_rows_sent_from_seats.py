"""rows sent from seats: a seated phone's own row of the round being played

Revision ID: b5d7f9a1c3e2
Revises: a2c4e6f8b1d3
Create Date: 2026-12-02 13:10:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b5d7f9a1c3e2'
down_revision = 'a2c4e6f8b1d3'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'sent_row',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('match_id', sa.Integer(), nullable=False),
        sa.Column('number', sa.Integer(), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.Column('data', sa.JSON(), nullable=False),
        sa.Column('phone', sa.String(length=64), nullable=False),
        sa.Column('phone_label', sa.String(length=80), nullable=False),
        sa.Column('sent_at', sa.DateTime(), nullable=False),
        sa.Column('revision', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['match_id'], ['match.id'], name=op.f('fk_sent_row_match_id_match'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_sent_row')),
        sa.UniqueConstraint('match_id', 'number', 'position', name=op.f('uq_sent_row_match_id_number_position')),
    )


def downgrade():
    op.drop_table('sent_row')
