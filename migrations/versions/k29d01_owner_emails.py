"""an owner's email address for a property's notices (double opt-in), and the messages sent
to it

Revision ID: k29d01
Revises: k26a01
Create Date: 2026-12-03 09:15:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "k29d01"
down_revision: str | None = "k26a01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "owner_email",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("property_id", sa.Integer(), nullable=False),
        sa.Column("owner_key", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column("address", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("language", sqlmodel.sql.sqltypes.AutoString(length=2), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=True),
        sa.Column("token_expires_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("confirmed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_owner_email_district_id_district")
        ),
        sa.ForeignKeyConstraint(
            ["property_id"], ["property.id"], name=op.f("fk_owner_email_property_id_property")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_owner_email")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_owner_email_token_hash")),
    )
    with op.batch_alter_table("owner_email", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_owner_email_district_id"), ["district_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_owner_email_property_id"), ["property_id"], unique=False
        )

    op.create_table(
        "owner_message",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("property_id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column("key", sa.String(length=80), nullable=False),
        sa.Column("notice_id", sa.Integer(), nullable=True),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column("error", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("sent_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["notice_id"], ["notice.id"], name=op.f("fk_owner_message_notice_id_notice")
        ),
        sa.ForeignKeyConstraint(
            ["property_id"], ["property.id"], name=op.f("fk_owner_message_property_id_property")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_owner_message")),
        sa.UniqueConstraint("key", name=op.f("uq_owner_message_key")),
    )
    with op.batch_alter_table("owner_message", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_owner_message_created_at"), ["created_at"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_owner_message_property_id"), ["property_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("owner_message", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_owner_message_property_id"))
        batch_op.drop_index(batch_op.f("ix_owner_message_created_at"))

    op.drop_table("owner_message")
    with op.batch_alter_table("owner_email", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_owner_email_property_id"))
        batch_op.drop_index(batch_op.f("ix_owner_email_district_id"))

    op.drop_table("owner_email")
