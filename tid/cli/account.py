"""The special account of a district (``tid account``): deposits, the check of the journal,
the lock of a closed fiscal year."""

from __future__ import annotations

import json
import sys

import click
from flask import current_app
from flask.cli import with_appcontext

from tid.cli.districts import district_id_of
from tid.cli.errors import fail
from tid.rules.errors import InputError


@click.group("account")
def account_group() -> None:
    """The special account of a district (21 LPRA § 6653(6))."""


@account_group.command("import-deposits")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--district", "district", required=True, help="District id or exact name.")
@with_appcontext
def account_import_deposits(file: str, district: str) -> None:
    """Book the bank deposits in FILE (CSV: date, amount, reference, and cadastral_number or
    notice_number): every row or none; a deposit already booked is not booked again."""
    from datetime import date

    from tid.clock import today
    from tid.db import get_session
    from tid.services.account import payments
    from tid.services.audit_trail import audit

    def _today() -> date:
        return today(current_app.config)

    district_id = district_id_of(district)
    session = get_session()
    with open(file, "rb") as fh:
        data = fh.read(5_000_001)
    try:
        result = payments.import_deposits(
            session=session,
            actor=audit.Actor("command line"),
            district_id=district_id,
            data=data,
            today=_today(),
        )
        session.commit()
    except InputError as exc:
        session.rollback()
        fail(exc)
    summary = {
        "rows": result.rows,
        "booked": result.booked,
        "already_booked": result.already_booked,
        "total_booked": f"{result.total_booked:.2f}",
    }
    if result.quotes:  # the deposits that paid against a payoff quote, and what remains
        summary["payoff_quotes"] = [
            {
                "row": q.row,
                "reference": q.reference,
                "settled": q.settled,
                "remaining": f"{q.remaining:.2f}",
            }
            for q in result.quotes
        ]
    click.echo(json.dumps(summary, indent=2, ensure_ascii=False))


@account_group.command("verify")
@click.option("--district", "district", default="", help="District id or exact name (all).")
@with_appcontext
def account_verify(district: str) -> None:
    """Recompute every running balance of the special account from the journal, check that
    every entry balances, and print each account's balance (JSON); exit 1 on a difference."""
    from tid.db import get_session
    from tid.services import ledger
    from tid.services.account.account_check import verify

    session = get_session()
    district_id = district_id_of(district) if district else None
    lines, differences = ledger.verify(session=session, district_id=district_id)
    for d in differences:
        click.echo(
            f"district {d.district_id}: {d.what} {d.key}: stored {d.stored}, journal {d.journal}",
            err=True,
        )
    report = verify(session=session, district_id=district_id)
    agrees = not differences and bool(report["ok"])
    click.echo(
        json.dumps(
            {
                "journal_lines": lines,
                "differences": len(differences),
                "agrees": agrees,
                "unbalanced_entries": report["unbalanced_entries"],
                "districts": report["districts"],
            },
            indent=2,
            ensure_ascii=False,
        )
    )
    if not agrees:
        sys.exit(1)


@account_group.command("lock-year")
@click.option("--district", "district", required=True, help="District id or exact name.")
@click.option("--fiscal-year", "fiscal_year", required=True, help='Like "2025-26".')
@click.option("--unlock", is_flag=True, help="Lift the lock instead.")
@with_appcontext
def account_lock_year(district: str, fiscal_year: str, unlock: bool) -> None:
    """Lock a closed fiscal year (nothing can then be booked on a date in it), or lift it."""
    from tid.clock import today
    from tid.db import get_session
    from tid.rules.periods import parse_fiscal_year
    from tid.services.account import year_locks
    from tid.services.audit_trail import audit

    session = get_session()
    try:
        fy = parse_fiscal_year(fiscal_year)
        actor = audit.Actor("command line")
        district_id = district_id_of(district)
        if unlock:
            year_locks.unlock_year(session=session, actor=actor, district_id=district_id, fy=fy)
        else:
            year_locks.lock_year(
                session=session,
                actor=actor,
                district_id=district_id,
                fy=fy,
                today=today(current_app.config),
            )
        session.commit()
    except InputError as exc:
        session.rollback()
        fail(exc)
    state = "open" if unlock else "locked"
    click.echo(json.dumps({"fiscal_year": fy.label, "state": state}))
