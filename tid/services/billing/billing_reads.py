"""The billing runs and ordinances as the pages read them: a run by its id, a run with the
runs it supersedes and is superseded by, a district's ordinances, and every district's
latest roll and active run."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlmodel import Session, col, select

from tid.models import BillingRun, BillingRunStatus, District, Municipality, Ordinance, RollImport
from tid.services import places, roll
from tid.services.auth import access as policy


def run(*, session: Session, run_id: int) -> BillingRun | None:
    """The billing run with this id (None: there is none)."""
    return session.get(BillingRun, run_id)


def ordinances(*, session: Session, district_id: int) -> list[Ordinance]:
    """The district's ordinances, the latest issued first."""
    return list(
        session.exec(
            select(Ordinance)
            .where(Ordinance.district_id == district_id)
            .order_by(col(Ordinance.issued_on).desc())
        )
    )


@dataclass(frozen=True)
class RunLineage:
    """A run with its ordinance, the run it supersedes and the run that supersedes it."""

    run: BillingRun
    ordinance: Ordinance | None
    previous: BillingRun | None
    superseded_by: BillingRun | None
    roll_imports: list[RollImport]  # the imports of the run's fiscal year's roll, latest first

    @property
    def parameters(self) -> dict[str, Any]:
        """The formula's parameters the run was made with."""
        found: dict[str, Any] = json.loads(self.run.parameters or "{}")
        return found

    @property
    def warnings(self) -> list[Any]:
        """What the run warned of when it was made."""
        found: list[Any] = json.loads(self.run.warnings or "[]")
        return found

    @property
    def difference(self) -> Decimal:
        """What the run billed beyond the ordinance's expected amount (below it: negative)."""
        return self.run.total - self.run.expected_amount

    @property
    def correctable(self) -> bool:
        """The active run may be run again to correct it; a superseded one is history."""
        return self.run.status == BillingRunStatus.ACTIVE.value


def run_lineage(*, session: Session, district_id: int, run_id: int) -> RunLineage | None:
    """The district's run with this id and its neighbours (None: the district has no such
    run)."""
    found = session.get(BillingRun, run_id)
    if found is None or found.district_id != district_id:
        return None
    return RunLineage(
        run=found,
        ordinance=session.get(Ordinance, found.ordinance_id),
        previous=session.get(BillingRun, found.supersedes_id) if found.supersedes_id else None,
        superseded_by=session.exec(
            select(BillingRun).where(BillingRun.supersedes_id == found.id)
        ).first(),
        roll_imports=[
            i
            for i in roll.imports(session=session, district_id=district_id)
            if i.fiscal_year == found.fiscal_year
        ],
    )


@dataclass(frozen=True)
class DistrictRow:
    """A district on the list of districts: its latest roll (fiscal year, properties) and
    its active billing run."""

    district: District
    municipality: Municipality
    latest: tuple[str, int] | None
    active_run: BillingRun | None


def district_rows(*, session: Session, person: policy.Person) -> list[DistrictRow]:
    """The districts ``person`` may see, by municipality and name."""
    rows = []
    for district, municipality in places.visible_districts(session=session, person=person):
        years = roll.fiscal_years(session=session, district_id=district.id or 0)
        rows.append(
            DistrictRow(
                district=district,
                municipality=municipality,
                latest=years[0] if years else None,
                active_run=_active_run(session, district.id or 0),
            )
        )
    return rows


def _active_run(session: Session, district_id: int) -> BillingRun | None:
    """The district's active run of its latest year (the newest version first)."""
    return session.exec(
        select(BillingRun)
        .where(
            BillingRun.district_id == district_id,
            BillingRun.status == BillingRunStatus.ACTIVE.value,
        )
        .order_by(col(BillingRun.fiscal_year).desc(), col(BillingRun.version).desc())
    ).first()
