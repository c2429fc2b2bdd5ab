"""an index of each district's roll by fiscal year: a year's count of properties (the roll's
pages) reads the index alone

Revision ID: i9d01
Revises: i10docs01
Create Date: 2026-12-02 02:30:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "i9d01"
down_revision: str | None = "i10docs01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("property_year", schema=None) as batch_op:
        batch_op.create_index(
            "ix_property_year_district_id_fiscal_year",
            ["district_id", "fiscal_year", "in_roll"],
            unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("property_year", schema=None) as batch_op:
        batch_op.drop_index("ix_property_year_district_id_fiscal_year")
