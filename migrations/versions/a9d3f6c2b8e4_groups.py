"""groups: players and matches belong to one group, phones are its members; an existing database becomes the open group

Revision ID: a9d3f6c2b8e4
Revises: f7b3c9d2e6a1
Create Date: 2026-12-02 04:00:00.000000

"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "a9d3f6c2b8e4"
down_revision = "f7b3c9d2e6a1"
branch_labels = None
depends_on = None


def upgrade():
    groups = op.create_table(
        "play_group",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("invite", sa.String(length=64), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_play_group")),
        sa.UniqueConstraint("invite", name=op.f("uq_play_group_invite")),
    )
    # The open group (models.OPEN_GROUP_ID): the first row of a new table, so id 1 on every database.
    op.execute(groups.insert().values(name="", created_at=sa.func.current_timestamp()))
    op.create_table(
        "member",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("group_id", sa.Integer(), nullable=False),
        sa.Column("phone", sa.String(length=64), nullable=False),
        sa.Column("host", sa.Boolean(), nullable=False),
        sa.Column("joined_at", sa.DateTime(), nullable=False),
        sa.Column("last_seen", sa.DateTime(), nullable=False),
        sa.Column("label", sa.String(length=80), nullable=False),
        sa.ForeignKeyConstraint(
            ["group_id"], ["play_group.id"], name=op.f("fk_member_group_id_play_group"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_member")),
        sa.UniqueConstraint("group_id", "phone", name=op.f("uq_member_group_id_phone")),
    )
    op.create_index(op.f("ix_member_phone"), "member", ["phone"], unique=False)
    # Every player and match there was is the open group's.
    for table, unique in (("player", "key"), ("match", "uid")):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("group_id", sa.Integer(), nullable=False, server_default="1"))
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.alter_column("group_id", server_default=None)
            batch_op.drop_constraint(f"uq_{table}_{unique}", type_="unique")
            batch_op.create_unique_constraint(op.f(f"uq_{table}_group_id_{unique}"), ["group_id", unique])
            batch_op.create_index(op.f(f"ix_{table}_group_id"), ["group_id"], unique=False)
            batch_op.create_foreign_key(
                op.f(f"fk_{table}_group_id_play_group"), "play_group", ["group_id"], ["id"], ondelete="CASCADE"
            )
    # The books are kept per group now: drawn again, stale, so the next start rates every group's matches.
    op.drop_table("rating_book")
    op.create_table(
        "rating_book",
        sa.Column("group_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=20), nullable=False),
        sa.Column("stale", sa.Boolean(), nullable=False),
        sa.Column("rated", sa.Integer(), nullable=False),
        sa.Column("last_finished_at", sa.DateTime(), nullable=True),
        sa.Column("last_match_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["group_id"], ["play_group.id"], name=op.f("fk_rating_book_group_id_play_group"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("group_id", "game", name=op.f("pk_rating_book")),
    )


def downgrade():
    op.drop_table("rating_book")
    op.create_table(
        "rating_book",
        sa.Column("game", sa.String(length=20), nullable=False),
        sa.Column("stale", sa.Boolean(), nullable=False),
        sa.Column("rated", sa.Integer(), nullable=False),
        sa.Column("last_finished_at", sa.DateTime(), nullable=True),
        sa.Column("last_match_id", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("game", name=op.f("pk_rating_book")),
    )
    for table, unique in (("match", "uid"), ("player", "key")):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_constraint(op.f(f"fk_{table}_group_id_play_group"), type_="foreignkey")
            batch_op.drop_index(op.f(f"ix_{table}_group_id"))
            batch_op.drop_constraint(op.f(f"uq_{table}_group_id_{unique}"), type_="unique")
            batch_op.create_unique_constraint(f"uq_{table}_{unique}", [unique])
            batch_op.drop_column("group_id")
    op.drop_index(op.f("ix_member_phone"), table_name="member")
    op.drop_table("member")
    op.drop_table("play_group")
