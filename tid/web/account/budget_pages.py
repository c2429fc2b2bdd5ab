"""The district's budget of a fiscal year (21 LPRA § 6653(6)): drafted by purpose and
checked against the law, approved by the board, amended with a reason; its year against the
actual spending and commitments, month by month; the year before's carry-over."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from flask import Response, render_template, request, url_for
from flask_babel import gettext as _

from tid import documents
from tid.app_reader import reader
from tid.db import get_session
from tid.i18n import language
from tid.models import District
from tid.rules.errors import N_
from tid.rules.money import money_str
from tid.rules.periods import FiscalYear
from tid.services.budget import actuals, carry_over, page_reads, planning
from tid.services.public import published_records
from tid.web.access import may_write_district, me, require, visible_district
from tid.web.account.blueprint import READERS, WRITERS, bp
from tid.web.account.fields import date_field, fiscal_year, money_field, saved_or_said, writer
from tid.web.forms import Form
from tid.web.util import today

# The steps of a budget's history, as its page names them.
_STEPS = {
    "drafted": N_("drafted"),
    "revised": N_("draft revised"),
    "approved": N_("approved by the board"),
    "amended": N_("amended"),
    "carried": N_("carry-over entered"),
}

_BUDGET_FIELDS = ("billed", "collection_rate", "rate_reason", "other_income", "carry_over")


def _percent(rate: Decimal) -> str:
    return f"{(rate * 100).normalize():f}"


def _plan_values(page: page_reads.BudgetPage) -> dict[str, str]:
    plan = page.plan
    values = {
        "billed": money_str(plan.billed),
        "collection_rate": _percent(plan.collection_rate),
        "rate_reason": plan.rate_reason,
        "other_income": money_str(plan.other_income),
        "carry_over": money_str(plan.carry_over),
        "reason": "",
    }
    for key, _name in page.lines:
        values[f"line_{key}"] = money_str(plan.lines.get(key, Decimal(0)))
    return values


def _budget_view(
    district: District, fy: FiscalYear, values: dict[str, str] | None, errors: dict[str, str]
) -> Any:
    page = page_reads.budget_page(session=get_session(), district_id=district.id or 0, fy=fy)
    shown = _plan_values(page) | (values or {})
    offered = {f"line_{key}" for key, _name in page.lines}
    # A line sent that the page does not offer is shown with its refusal beside it.
    unknown = [
        (name.removeprefix("line_"), _("Purpose %(key)s", key=name.removeprefix("line_")))
        for name in shown
        if name.startswith("line_") and name not in offered
    ]
    shown.setdefault("approved_on", today().isoformat())
    return render_template(
        "account/budget.html",
        district=district,
        fy=fy,
        page=page,
        lines=[(key, _(name) if key == planning.ADMIN else name) for key, name in page.lines]
        + unknown,
        values=shown,
        errors=errors,
        rate_percent=_percent,
        may_write=may_write_district(district),
        previous_fy=FiscalYear(fy.start_year - 1),
        next_fy=FiscalYear(fy.start_year + 1),
        steps={kind: _(label) for kind, label in _STEPS.items()},
    ), (422 if errors else 200)


def _write_plan(district_id: int, fy: FiscalYear, values: dict[str, str], keys: list[str]) -> Any:
    db = get_session()
    plan = planning.read_plan(values, line_keys=keys)
    budget = planning.budget_of(session=db, district_id=district_id, fy=fy)
    if budget is not None and budget.status == planning.APPROVED:
        return planning.amend_budget(
            session=db,
            actor=me().actor,
            district_id=district_id,
            fy=fy,
            plan=plan,
            reason=values["reason"],
            today=today(),
        )
    return planning.draft_budget(
        session=db, actor=me().actor, district_id=district_id, fy=fy, plan=plan, today=today()
    )


@bp.route("/<int:district_id>/budget", methods=["GET", "POST"])
@require(*READERS)
def budget(district_id: int) -> Any:
    district = visible_district(district_id)
    fy = fiscal_year(district_id)
    if request.method != "POST":
        return _budget_view(district, fy, None, {})
    writer(district)
    page = page_reads.budget_page(session=get_session(), district_id=district_id, fy=fy)
    keys = [key for key, _name in page.lines]
    # A line the form sends that the page did not offer (a purpose not the district's) is
    # read too, so that it is refused at its field rather than dropped.
    keys += [
        name.removeprefix("line_")
        for name in request.form
        if name.startswith("line_") and name.removeprefix("line_") not in keys
    ]
    values = {name: request.form.get(name, "") for name in (*_BUDGET_FIELDS, "reason")}
    values |= {f"line_{key}": request.form.get(f"line_{key}", "") for key in keys}
    form = Form()
    form.write(lambda: _write_plan(district_id, fy, values, keys))
    done = form.saved(
        _("Budget amended.")
        if page.budget and page.budget.status == "approved"
        else _("Budget saved."),
        url_for("account.budget", district_id=district_id, fy=fy.label),
    )
    return done or _budget_view(district, fy, values, form.errors)


@bp.route("/<int:district_id>/budget/approve", methods=["POST"])
@require(*WRITERS)
def budget_approve(district_id: int) -> Any:
    district = visible_district(district_id)
    writer(district)
    fy = fiscal_year(district_id)
    values = {name: request.form.get(name, "") for name in ("approved_on", "minutes")}
    form = Form()
    approved_on = form.read(lambda: date_field(values, "approved_on"))
    if approved_on is not None:
        form.write(
            lambda: planning.approve_budget(
                session=get_session(),
                actor=me().actor,
                district_id=district_id,
                fy=fy,
                approved_on=approved_on,
                minutes=values["minutes"],
                today=today(),
            )
        )
    done = form.saved(
        _("The board's approval is recorded."),
        url_for("account.budget", district_id=district_id, fy=fy.label),
    )
    if done:
        return done
    return _budget_view(district, fy, values, form.errors)


@bp.route("/<int:district_id>/budget/carry-over", methods=["POST"])
@require(*WRITERS)
def budget_carry_over(district_id: int) -> Any:
    """Carry the year before ``fy`` over into ``fy``'s budget."""
    district = visible_district(district_id)
    writer(district)
    fy = fiscal_year(district_id)
    before = FiscalYear(fy.start_year - 1)
    form = Form()
    form.write(
        lambda: carry_over.carry_over(
            session=get_session(),
            actor=me().actor,
            district_id=district_id,
            fy=before,
            today=today(),
        )
    )
    return saved_or_said(
        form,
        _("The carry-over of FY %(fy)s is in the budget.", fy=before.label),
        url_for("account.budget", district_id=district_id, fy=fy.label),
    )


def _actual_view(
    district: District, fy: FiscalYear, values: dict[str, str], errors: dict[str, str]
) -> Any:
    page = page_reads.actual_page(
        session=get_session(), district_id=district.id or 0, fy=fy, today=today()
    )
    values["committed_on"] = values.get("committed_on") or min(today(), fy.end).isoformat()
    return render_template(
        "account/budget_actual.html",
        district=district,
        fy=fy,
        page=page,
        months=fy.months(),
        line_options=[
            (line.key, _(line.name) if line.key == planning.ADMIN else line.name)
            for line in (page.found.lines if page.found else [])
        ],
        values=values,
        errors=errors,
        may_write=may_write_district(district),
    ), (422 if errors else 200)


@bp.route("/<int:district_id>/budget/actual", methods=["GET", "POST"])
@require(*READERS)
def budget_actual(district_id: int) -> Any:
    """The budget against the actual; its form records a commitment against a line."""
    district = visible_district(district_id)
    fy = fiscal_year(district_id)
    names = ("line", "committed_on", "payee", "amount", "description")
    values = {name: request.form.get(name, "") for name in names}
    if request.method != "POST":
        return _actual_view(district, fy, values, {})
    writer(district)
    form = Form()
    amount = form.read(lambda: money_field(values, "amount"))
    committed_on = form.read(lambda: date_field(values, "committed_on"))
    if amount is not None and committed_on is not None:
        form.write(
            lambda: actuals.record_commitment(
                session=get_session(),
                actor=me().actor,
                district_id=district_id,
                fy=fy,
                key=values["line"],
                committed_on=committed_on,
                payee=values["payee"],
                amount=amount,
                today=today(),
                description=values["description"],
            )
        )
    done = form.saved(
        _("Commitment recorded."),
        url_for("account.budget_actual", district_id=district_id, fy=fy.label),
    )
    return done or _actual_view(district, fy, values, form.errors)


@bp.route("/<int:district_id>/budget/commitments/<int:commitment_id>/settle", methods=["POST"])
@require(*WRITERS)
def budget_settle(district_id: int, commitment_id: int) -> Any:
    district = visible_district(district_id)
    writer(district)
    fy = fiscal_year(district_id)
    form = Form()
    form.write(
        lambda: actuals.settle(
            session=get_session(),
            actor=me().actor,
            district_id=district_id,
            commitment_id=commitment_id,
            today=today(),
        )
    )
    return saved_or_said(
        form,
        _("The commitment no longer counts against its line."),
        url_for("account.budget_actual", district_id=district_id, fy=fy.label),
    )


@bp.route("/<int:district_id>/budget/actual.csv")
@require(*READERS)
def budget_actual_csv(district_id: int) -> Any:
    visible_district(district_id)
    fy = fiscal_year(district_id)
    page = page_reads.actual_page(
        session=get_session(), district_id=district_id, fy=fy, today=today()
    )
    response = Response(page_reads.actual_csv(page.found, fy), mimetype="text/csv")
    response.headers["Content-Disposition"] = (
        f'attachment; filename="budget-actual-{district_id}-{fy.label}.csv"'
    )
    return response


_REPORT = "budget-report.pdf"


def _publish_report(district: District, fy: FiscalYear) -> Any:
    """Make the year's report in the reader's language, archive it and publish it."""
    made = documents.make(
        get_session(), _REPORT, reader=reader(language()), district=district.id, year=fy
    )
    return published_records.publish(
        session=get_session(),
        actor=me().actor,
        district=district,
        fy=fy,
        kind=_REPORT,
        title=_(published_records.PUBLISHABLE[_REPORT], year=fy.label),
        language=language(),
        content=made.data,
        media_type=made.media_type,
    )


@bp.route("/<int:district_id>/budget/report", methods=["POST"])
@require(*WRITERS)
def budget_report(district_id: int) -> Any:
    """Issue the closed year's report (PDF/A), archive it and publish it."""
    district = visible_district(district_id)
    writer(district)
    fy = fiscal_year(district_id)
    form = Form()
    form.write(lambda: _publish_report(district, fy))
    return saved_or_said(
        form,
        _("The yearly report of FY %(fy)s is published.", fy=fy.label),
        url_for("account.budget", district_id=district_id, fy=fy.label),
    )
