"""The billing runs and ordinances as the pages read them: a run by its id, a run with the
runs it supersedes and is superseded by, and a district's ordinances."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from sqlmodel import Session, col, select

from tid.models import BillingRun, BillingRunStatus, Ordinance


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
    )
