"""the fiscal years published (or withdrawn) for the public pages, and each district's public
version

Revision ID: k26a01
Revises: k27a01
Create Date: 2026-12-03 06:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "k26a01"
down_revision: str | None = "k27a01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "published_year",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("fiscal_year", sqlmodel.sql.sqltypes.AutoString(length=7), nullable=False),
        sa.Column("published", sa.Boolean(), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_published_year_district_id_district")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_published_year")),
        sa.UniqueConstraint(
            "district_id", "fiscal_year", name=op.f("uq_published_year_district_id_fiscal_year")
        ),
    )
    with op.batch_alter_table("published_year", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_published_year_district_id"), ["district_id"], unique=False
        )
    op.create_table(
        "public_version",
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_public_version_district_id_district")
        ),
        sa.PrimaryKeyConstraint("district_id", name=op.f("pk_public_version")),
    )


def downgrade() -> None:
    op.drop_table("public_version")
    with op.batch_alter_table("published_year", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_published_year_district_id"))
    op.drop_table("published_year")
