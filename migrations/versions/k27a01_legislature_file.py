"""the legislature's file: documents in versions, their stored files, the CRIM transmittal
and the search index (with unaccent on PostgreSQL)

Revision ID: k27a01
Revises: k25a01
Create Date: 2026-12-03 06:08:31.565551
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "k27a01"
down_revision: str | None = "k25a01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":  # accents folded in the search
        op.execute("CREATE EXTENSION IF NOT EXISTS unaccent")
    op.create_table(
        "stored_file",
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("media_type", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("sha256", name=op.f("pk_stored_file")),
    )
    op.create_table(
        "petition_document",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("petition_id", sa.Integer(), nullable=False),
        sa.Column("step", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=30), nullable=False),
        sa.Column("title", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("dated_on", sa.Date(), nullable=False),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("generated", sa.Boolean(), nullable=False),
        sa.Column("created_by", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("withdrawn_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("withdrawn_by", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("withdrawn_reason", sa.Text(), server_default="", nullable=False),
        sa.ForeignKeyConstraint(
            ["petition_id"], ["petition.id"], name=op.f("fk_petition_document_petition_id_petition")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_petition_document")),
    )
    with op.batch_alter_table("petition_document", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_petition_document_kind"), ["kind"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_petition_document_petition_id"), ["petition_id"], unique=False
        )

    op.create_table(
        "search_entry",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("ref_id", sa.Integer(), nullable=False),
        sa.Column("petition_id", sa.Integer(), nullable=False),
        sa.Column("municipality_id", sa.Integer(), nullable=False),
        sa.Column("title", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("body", sa.Text(), server_default="", nullable=False),
        sa.Column(
            "words", sa.Text().with_variant(postgresql.TSVECTOR(), "postgresql"), nullable=True
        ),
        sa.ForeignKeyConstraint(
            ["municipality_id"],
            ["municipality.id"],
            name=op.f("fk_search_entry_municipality_id_municipality"),
        ),
        sa.ForeignKeyConstraint(
            ["petition_id"], ["petition.id"], name=op.f("fk_search_entry_petition_id_petition")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_search_entry")),
        sa.UniqueConstraint("kind", "ref_id", name=op.f("uq_search_entry_kind_ref_id")),
    )
    with op.batch_alter_table("search_entry", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_search_entry_municipality_id"), ["municipality_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_search_entry_petition_id"), ["petition_id"], unique=False
        )
        batch_op.create_index(
            "ix_search_entry_words", ["words"], unique=False, postgresql_using="gin"
        )

    op.create_table(
        "crim_transmittal",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("petition_id", sa.Integer(), nullable=False),
        sa.Column("ordinance_id", sa.Integer(), nullable=False),
        sa.Column("letter_id", sa.Integer(), nullable=False),
        sa.Column("sent_on", sa.Date(), nullable=True),
        sa.Column("sent_by", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("reference", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("acknowledgement_id", sa.Integer(), nullable=True),
        sa.Column("acknowledged_on", sa.Date(), nullable=True),
        sa.Column("created_by", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["acknowledgement_id"],
            ["petition_document.id"],
            name=op.f("fk_crim_transmittal_acknowledgement_id_petition_document"),
        ),
        sa.ForeignKeyConstraint(
            ["letter_id"],
            ["petition_document.id"],
            name=op.f("fk_crim_transmittal_letter_id_petition_document"),
        ),
        sa.ForeignKeyConstraint(
            ["ordinance_id"],
            ["ordinance.id"],
            name=op.f("fk_crim_transmittal_ordinance_id_ordinance"),
        ),
        sa.ForeignKeyConstraint(
            ["petition_id"], ["petition.id"], name=op.f("fk_crim_transmittal_petition_id_petition")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_crim_transmittal")),
    )
    with op.batch_alter_table("crim_transmittal", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_crim_transmittal_ordinance_id"), ["ordinance_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_crim_transmittal_petition_id"), ["petition_id"], unique=False
        )

    op.create_table(
        "document_version",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("filename", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("media_type", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("pages", sa.Integer(), nullable=True),
        sa.Column("uploaded_by", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("uploaded_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("reason", sa.Text(), server_default="", nullable=False),
        sa.Column("text_state", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
        sa.ForeignKeyConstraint(
            ["document_id"],
            ["petition_document.id"],
            name=op.f("fk_document_version_document_id_petition_document"),
        ),
        sa.ForeignKeyConstraint(
            ["sha256"], ["stored_file.sha256"], name=op.f("fk_document_version_sha256_stored_file")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_document_version")),
        sa.UniqueConstraint(
            "document_id", "number", name=op.f("uq_document_version_document_id_number")
        ),
    )
    with op.batch_alter_table("document_version", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_document_version_document_id"), ["document_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_document_version_sha256"), ["sha256"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("document_version", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_document_version_sha256"))
        batch_op.drop_index(batch_op.f("ix_document_version_document_id"))

    op.drop_table("document_version")
    with op.batch_alter_table("crim_transmittal", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_crim_transmittal_petition_id"))
        batch_op.drop_index(batch_op.f("ix_crim_transmittal_ordinance_id"))

    op.drop_table("crim_transmittal")
    with op.batch_alter_table("search_entry", schema=None) as batch_op:
        batch_op.drop_index("ix_search_entry_words", postgresql_using="gin")
        batch_op.drop_index(batch_op.f("ix_search_entry_petition_id"))
        batch_op.drop_index(batch_op.f("ix_search_entry_municipality_id"))

    op.drop_table("search_entry")
    with op.batch_alter_table("petition_document", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_petition_document_petition_id"))
        batch_op.drop_index(batch_op.f("ix_petition_document_kind"))

    op.drop_table("petition_document")
    op.drop_table("stored_file")
