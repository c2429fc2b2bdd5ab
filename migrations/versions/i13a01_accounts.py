"""accounts: sign-in throttles, password resets, two-factor sign-in, session expiry and
server-side portal sessions

Revision ID: i13a01
Revises: i08_request_count
Create Date: 2026-12-01 14:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "i13a01"
down_revision: str | None = "i08_request_count"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "throttle",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("window_start", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("last_failure_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("blocked_until", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_throttle")),
        sa.UniqueConstraint("key", name=op.f("uq_throttle_key")),
    )
    with op.batch_alter_table("throttle", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_throttle_blocked_until"), ["blocked_until"], unique=False
        )

    op.create_table(
        "password_reset",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("expires_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("used_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_password_reset_user_id_user_account")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_password_reset")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_password_reset_token_hash")),
    )
    with op.batch_alter_table("password_reset", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_password_reset_user_id"), ["user_id"], unique=False)

    op.create_table(
        "recovery_code",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("used_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_recovery_code_user_id_user_account")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_recovery_code")),
        sa.UniqueConstraint("code_hash", name=op.f("uq_recovery_code_code_hash")),
    )
    with op.batch_alter_table("recovery_code", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_recovery_code_user_id"), ["user_id"], unique=False)

    op.create_table(
        "portal_session",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("notice_ids", sa.Text(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("last_seen_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("revoked_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_portal_session")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_portal_session_token_hash")),
    )

    with op.batch_alter_table("user_account", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("totp_secret", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )
        batch_op.add_column(
            sa.Column("totp_enabled_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True)
        )
        batch_op.add_column(sa.Column("totp_last_step", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("password_changed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True)
        )

    with op.batch_alter_table("loginsession", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("last_seen_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True)
        )
        batch_op.add_column(
            sa.Column(
                "address",
                sqlmodel.sql.sqltypes.AutoString(length=64),
                nullable=False,
                server_default="",
            )
        )
        batch_op.add_column(
            sa.Column(
                "user_agent",
                sqlmodel.sql.sqltypes.AutoString(length=200),
                nullable=False,
                server_default="",
            )
        )
    with op.batch_alter_table("loginsession", schema=None) as batch_op:
        batch_op.alter_column("address", server_default=None)
        batch_op.alter_column("user_agent", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("loginsession", schema=None) as batch_op:
        batch_op.drop_column("user_agent")
        batch_op.drop_column("address")
        batch_op.drop_column("last_seen_at")
    with op.batch_alter_table("user_account", schema=None) as batch_op:
        batch_op.drop_column("password_changed_at")
        batch_op.drop_column("totp_last_step")
        batch_op.drop_column("totp_enabled_at")
        batch_op.drop_column("totp_secret")
    op.drop_table("portal_session")
    with op.batch_alter_table("recovery_code", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_recovery_code_user_id"))
    op.drop_table("recovery_code")
    with op.batch_alter_table("password_reset", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_password_reset_user_id"))
    op.drop_table("password_reset")
    with op.batch_alter_table("throttle", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_throttle_blocked_until"))
    op.drop_table("throttle")
