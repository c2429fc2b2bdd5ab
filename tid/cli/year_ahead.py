"""The district's budget of a fiscal year (``tid budget``): the budget against the actual, as
JSON, and the carry-over of a closed year into the next year's budget."""

from __future__ import annotations

import json

import click
from flask import current_app
from flask.cli import with_appcontext

from tid.cli.districts import district_id_of
from tid.cli.errors import fail
from tid.rules.errors import InputError


@click.group("budget")
def budget_group() -> None:
    """The district's budget by authorized purpose (21 LPRA § 6653(6))."""


@budget_group.command("show")
@click.option("--district", "district", required=True, help="District id or exact name.")
@click.option("--fiscal-year", "fiscal_year", required=True, help='Like "2025-26".')
@with_appcontext
def budget_show(district: str, fiscal_year: str) -> None:
    """The year's budget (JSON): its state, the money expected, and each line budgeted,
    spent, committed and left to today; the administrative cap now and projected."""
    from tid.clock import today
    from tid.db import get_session
    from tid.rules.periods import parse_fiscal_year
    from tid.services.budget import actuals, planning

    session = get_session()
    try:
        fy = parse_fiscal_year(fiscal_year)
        budget = planning.budget_of(session=session, district_id=district_id_of(district), fy=fy)
        if budget is None:
            raise InputError("fiscal_year", planning.NO_BUDGET)
    except InputError as exc:
        fail(exc)
        return
    found = actuals.actuals(
        session=session, budget=budget, as_of=min(today(current_app.config), fy.end)
    )
    click.echo(
        json.dumps(
            {
                "fiscal_year": budget.fiscal_year,
                "status": budget.status,
                "approved_on": budget.approved_on.isoformat() if budget.approved_on else None,
                "amendments": budget.amendments,
                "expected_collections": f"{budget.expected_collections:.2f}",
                "other_income": f"{budget.other_income:.2f}",
                "carry_over": f"{budget.carry_over:.2f}",
                "as_of": found.as_of.isoformat(),
                "lines": [
                    {
                        "line": line.key,
                        "name": str(line.name),
                        "budget": f"{line.budget:.2f}",
                        "spent": f"{line.spent:.2f}",
                        "committed": f"{line.committed:.2f}",
                        "left": f"{line.left:.2f}",
                    }
                    for line in found.lines
                ],
                "cap_headroom_now": f"{found.cap_now.headroom:.2f}",
                "cap_headroom_projected": f"{found.headroom_projected:.2f}",
            },
            indent=2,
            ensure_ascii=False,
        )
    )


@budget_group.command("carry-over")
@click.option("--district", "district", required=True, help="District id or exact name.")
@click.option("--fiscal-year", "fiscal_year", required=True, help="The closed year, like 2025-26.")
@with_appcontext
def budget_carry_over(district: str, fiscal_year: str) -> None:
    """Carry a closed year's closing balance into the next year's budget."""
    from tid.clock import today
    from tid.db import get_session
    from tid.rules.periods import parse_fiscal_year
    from tid.services.audit_trail import audit
    from tid.services.budget import carry_over

    session = get_session()
    try:
        budget = carry_over.carry_over(
            session=session,
            actor=audit.Actor("command line"),
            district_id=district_id_of(district),
            fy=parse_fiscal_year(fiscal_year),
            today=today(current_app.config),
        )
        session.commit()
    except InputError as exc:
        session.rollback()
        fail(exc)
    click.echo(
        json.dumps(
            {
                "fiscal_year": budget.fiscal_year,
                "status": budget.status,
                "carry_over": f"{budget.carry_over:.2f}",
            }
        )
    )
