"""documents issued about a property (payoff quotes, lien certificates, releases) with their
reference and verification code

Revision ID: k29a01
Revises: k28b01
Create Date: 2026-12-03 06:20:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import tid.models

revision: str = "k29a01"
down_revision: str | None = "k28b01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "issued_document",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=30), nullable=False),
        sa.Column("reference", sa.String(length=30), nullable=False),
        sa.Column("code", sa.String(length=32), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("property_id", sa.Integer(), nullable=False),
        sa.Column("cadastral_number", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("issued_on", sa.Date(), nullable=False),
        sa.Column("good_through", sa.Date(), nullable=True),
        sa.Column("issued_by", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("association", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("secured", tid.models.Money(), nullable=False),
        sa.Column("charges", tid.models.Money(), nullable=False),
        sa.Column("total", tid.models.Money(), nullable=False),
        sa.Column("per_day", tid.models.Money(), nullable=False),
        sa.Column("lines", sa.Text(), nullable=False),
        sa.Column("paid", tid.models.Money(), nullable=False),
        sa.Column("charges_paid", tid.models.Money(), nullable=False),
        sa.Column("settled_entry_id", sa.Integer(), nullable=True),
        sa.Column("settled_on", sa.Date(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_issued_document_district_id_district")
        ),
        sa.ForeignKeyConstraint(
            ["property_id"], ["property.id"], name=op.f("fk_issued_document_property_id_property")
        ),
        sa.ForeignKeyConstraint(
            ["settled_entry_id"],
            ["journal_entry.id"],
            name=op.f("fk_issued_document_settled_entry_id_journal_entry"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_issued_document")),
        sa.UniqueConstraint("code", name=op.f("uq_issued_document_code")),
        sa.UniqueConstraint("reference", name=op.f("uq_issued_document_reference")),
    )
    with op.batch_alter_table("issued_document", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_issued_document_district_id"), ["district_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_issued_document_property_id"), ["property_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("issued_document", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_issued_document_property_id"))
        batch_op.drop_index(batch_op.f("ix_issued_document_district_id"))
    op.drop_table("issued_document")
