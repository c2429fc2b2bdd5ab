"""the documents of record a district publishes (as archived), and when each was withdrawn

Revision ID: k26b01
Revises: k26a01
Create Date: 2026-12-03 09:20:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "k26b01"
down_revision: str | None = "k25b01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TEXT = sqlmodel.sql.sqltypes.AutoString
_TIME = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "published_document",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("fiscal_year", _TEXT(length=7), nullable=False),
        sa.Column("kind", _TEXT(length=40), nullable=False),
        sa.Column("title", _TEXT(length=200), nullable=False),
        sa.Column("language", _TEXT(length=2), nullable=False),
        sa.Column("sha256", _TEXT(length=64), nullable=False),
        sa.Column("media_type", _TEXT(length=60), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("actor", _TEXT(length=254), nullable=False),
        sa.Column("published_at", _TIME(), nullable=False),
        sa.Column("withdrawn_at", _TIME(), nullable=True),
        sa.Column("withdrawn_by", _TEXT(length=254), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"],
            ["district.id"],
            name=op.f("fk_published_document_district_id_district"),
        ),
        sa.ForeignKeyConstraint(
            ["sha256"],
            ["archived_document.sha256"],
            name=op.f("fk_published_document_sha256_archived_document"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_published_document")),
        sa.UniqueConstraint(
            "district_id", "sha256", name=op.f("uq_published_document_district_id_sha256")
        ),
    )
    with op.batch_alter_table("published_document", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_published_document_district_id"), ["district_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("published_document", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_published_document_district_id"))
    op.drop_table("published_document")
