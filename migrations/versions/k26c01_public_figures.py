"""each district's public figures as computed for a version of the district, for every web
worker to read

Revision ID: k26c01
Revises: k26b01
Create Date: 2026-12-03 09:50:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "k26c01"
down_revision: str | None = "k26b01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "public_figures",
        sa.Column("district_id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("computed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["district_id"], ["district.id"], name=op.f("fk_public_figures_district_id_district")
        ),
        sa.PrimaryKeyConstraint("district_id", "name", name=op.f("pk_public_figures")),
    )


def downgrade() -> None:
    op.drop_table("public_figures")
