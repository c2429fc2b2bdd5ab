"""The yearly bills of a district (``tid billing run``)."""

from __future__ import annotations

import json

import click
from flask import current_app
from flask.cli import with_appcontext

from tid.cli.districts import district_id_of
from tid.cli.errors import fail
from tid.rules.errors import InputError


@click.group("billing")
def billing_group() -> None:
    """The yearly bills of a district (21 LPRA § 6653(3)(d), (5))."""


@billing_group.command("run")
@click.option("--district", "district", required=True, help="District id or exact name.")
@click.option("--fiscal-year", required=True, help='Like "2026-27".')
@click.option("--due-date", default=None, help="YYYY-MM-DD; default 60 days after the run.")
@click.option("--run-date", default=None, help="YYYY-MM-DD; default today in Puerto Rico.")
@click.option("--param", "params", multiple=True, help="A formula parameter: name=value.")
@click.option("--reason", default="", help="Why a corrected run is made.")
@with_appcontext
def billing_run(
    district: str,
    fiscal_year: str,
    due_date: str | None,
    run_date: str | None,
    params: tuple[str, ...],
    reason: str,
) -> None:
    """Bill every property of the year's roll by the ordinance's formula."""
    from tid import clock
    from tid.db import get_session
    from tid.rules.money import money_str
    from tid.rules.periods import parse_date
    from tid.services import billing
    from tid.services.audit_trail import audit

    today = clock.today(current_app.config)
    district_id = district_id_of(district)
    session = get_session()
    try:
        result = billing.run_billing(
            session=session,
            actor=audit.Actor("command line"),
            district_id=district_id,
            fiscal_year=fiscal_year,
            run_on=parse_date(run_date, "run_date") if run_date else today,
            due_date=parse_date(due_date, "due_date") if due_date else None,
            parameters="\n".join(params),
            reason=reason,
        )
        session.commit()
    except InputError as exc:
        session.rollback()
        fail(exc)
    run = result.run
    click.echo(
        json.dumps(
            {
                "run_id": run.id,
                "fiscal_year": run.fiscal_year,
                "version": run.version,
                "unchanged": result.unchanged,
                "properties": run.property_count,
                "total": money_str(result.total),
                "expected_amount": money_str(result.expected_amount),
                "difference": money_str(result.difference),
                "due_date": run.due_date.isoformat(),
                "supersedes_version": result.superseded.version if result.superseded else None,
                "superseded_bills": result.superseded_bills,
                "owners_needing_a_corrected_notice": result.mailed_superseded,
                "warnings": list(result.warnings),
            },
            indent=2,
            ensure_ascii=False,
        )
    )
