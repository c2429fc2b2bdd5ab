"""The special account of 21 LPRA § 6653(6), (8): the dashboard with the cap's line, payments
(by hand and from the bank's deposit file), expenditures on authorized purposes, reversals,
the bank balance check, delinquency and the lien priority, and the yearly statement for audit.

An association works on its own district; an administrator on every district; the auditor
reads every district and the municipality's clerk its districts, neither writes.
"""

from __future__ import annotations

import contextlib
import re
import secrets
from datetime import date
from decimal import Decimal
from typing import Any

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from sqlmodel import Session, col, select

from tid.db import get_session
from tid.documents import account as account_documents
from tid.documents.base import Document
from tid.i18n import language, rate, say
from tid.ids import parse_id, parse_page
from tid.models import District, JournalEntry, LateChargeTerms, Municipality, Property
from tid.render.account_charts import money_bars, ratio_chart
from tid.rules.errors import N_, FindingsError, InputError
from tid.rules.liens import KINDS, LIEN_KINDS
from tid.rules.money import MAX_ACCOUNT_AMOUNT, parse_money
from tid.rules.periods import FiscalYear, fiscal_year_of, parse_date, parse_fiscal_year
from tid.services import access as policy
from tid.services import (
    account_reads,
    audit_statement,
    expenditures,
    ledger,
    liens,
    payments,
    year_locks,
)
from tid.services.ledger import CapExceededError
from tid.services.paging import FIRST_ROWS
from tid.web import nav
from tid.web.access import deny_unless, may_write_district, me, require, visible_district
from tid.web.forms import Form
from tid.web.util import look_up_latest_jobs, send, today

bp = Blueprint("account", __name__, url_prefix="/account")

READERS = policy.DISTRICT_READERS
WRITERS = policy.DISTRICT_WRITERS

nav.add(
    "account.districts",
    N_("Special account"),
    N_(
        "Payments, expenditures under the administrative cap, delinquency and liens, "
        "the yearly statement."
    ),
    READERS,
)

# Labels that only templates and data use, kept in the catalog.
_LABELS = (
    N_("bill"),
    N_("payment"),
    N_("expenditure"),
    N_("reversal"),
    N_("bill_superseded"),
    N_("credit_applied"),
    N_("not yet due"),
    N_("over 365"),
)
_LIEN_KINDS = [k for k in KINDS if k != "tid_impost"]


# --------------------------------------------------------------------------- helpers


def _writer(district: District) -> None:
    deny_unless(may_write_district(district))


def _fy(district_id: int) -> FiscalYear:
    """The fiscal year asked for; by default today's, or the last one the district booked
    anything in when that is earlier (a page of empty months helps nobody)."""
    raw = request.args.get("fy", "")
    if raw:
        try:
            return parse_fiscal_year(raw)
        except InputError:
            abort(404)
    return account_reads.default_fiscal_year(get_session(), district_id, today())


def _money_field(values: dict[str, str], name: str) -> Decimal:
    try:
        amount = parse_money(values.get(name, ""), name, allow_negative=True)
    except InputError:
        raise InputError(name, N_("Write an amount like 1,234.50.")) from None
    if abs(amount) > MAX_ACCOUNT_AMOUNT:
        raise InputError(name, ledger.AMOUNT_TOO_LARGE)
    return amount


_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")
FORM_TOKEN_MISSING = N_(
    "This form was not sent whole (its one-time token is missing); nothing was booked. "
    "Check the list below and send the form again."
)


def _form_token(values: dict[str, str]) -> str:
    """The one-time token of a booking form: a payment or expenditure is booked once per
    token, so a form sent without one (a script, a replay) is refused, never booked anew."""
    token = values.get("token", "")
    if not _TOKEN.fullmatch(token):
        raise InputError("token", FORM_TOKEN_MISSING)
    return token


def _date_field(values: dict[str, str], name: str) -> date:
    try:
        return parse_date(values.get(name, ""), name)
    except InputError:
        raise InputError(name, N_("Write a date like 2026-03-02.")) from None


def _cap_text(figures: ledger.CapFigures) -> str:
    from tid.i18n import money

    return str(
        _(
            "FY %(fy)s: impost revenue collected to date %(revenue)s; administrative spending "
            "to date %(admin)s; cap %(cap)s; headroom %(headroom)s.",
            fy=figures.fiscal_year.label,
            revenue=money(figures.revenue),
            admin=money(figures.admin),
            cap=money(figures.cap.quantize(Decimal("0.01"), rounding="ROUND_DOWN")),
            headroom=money(figures.headroom),
        )
    )


def _send(document: Document) -> Response:
    """A PDF shown in the browser, a CSV file downloaded."""
    return send(document, inline=document.is_pdf)


# --------------------------------------------------------------------------- districts


@bp.route("")
@require(*READERS)
def districts() -> Any:
    user = me()
    own = policy.own_district(user)
    if own:
        return redirect(url_for("account.dashboard", district_id=own))
    db = get_session()
    stmt = (
        select(District, Municipality)
        .join(Municipality, col(Municipality.id) == col(District.municipality_id))
        .order_by(col(Municipality.name), col(District.name))
    )
    rows = [
        (d, m) for d, m in db.exec(stmt).all() if user.can_see_district(d.id, d.municipality_id)
    ]
    return render_template("account/districts.html", rows=rows)


@bp.route("/<int:district_id>")
@require(*READERS)
def dashboard(district_id: int) -> Any:
    district = visible_district(district_id)
    db = get_session()
    fy = _fy(district_id)
    months = audit_statement.months(db, district_id, fy)
    figures = ledger.cap_figures_of(  # the year's totals: the last month's to date
        fy, revenue=months[-1].revenue_to_date, admin=months[-1].admin_to_date
    )
    balances = ledger.balances(
        db, district_id, accounts=(ledger.BANK, ledger.RECEIVABLE, ledger.OWNER_CREDIT)
    )
    return render_template(
        "account/dashboard.html",
        district=district,
        fy=fy,
        figures=figures,
        months=months,
        bank=balances.get(ledger.BANK, Decimal("0.00")),
        receivable=balances.get(ledger.RECEIVABLE, Decimal("0.00"))
        + sum(ledger.unbooked_owed(db, district_id).values(), Decimal("0.00")),
        owner_credit=-balances.get(ledger.OWNER_CREDIT, Decimal("0.00")),
        bars=money_bars(months, title=_("Revenue and spending by month")),
        ratio=ratio_chart(
            months,
            figures.rate,
            title=_("Administrative ratio and the %(rate)s line", rate=rate(figures.rate)),
        ),
        may_write=may_write_district(district),
        checks=audit_statement.bank_checks(db, district_id, limit=1),
    )


# --------------------------------------------------------------------------- payments

_PAYMENT_FIELDS = ("date", "amount", "reference", "notice_number", "cadastral_number", "token")


# Long: one form read field by field, every error at once, then booked or refused whole.
@bp.route("/<int:district_id>/payments", methods=["GET", "POST"])
@require(*READERS)
def payments_page(district_id: int) -> Any:
    district = visible_district(district_id)
    db = get_session()
    errors: dict[str, str] = {}
    values = {name: request.form.get(name, "") for name in _PAYMENT_FIELDS}
    if request.method == "POST":
        _writer(district)
        form = Form()
        amount = form.read(lambda: _money_field(values, "amount"))
        paid_on = form.read(lambda: _date_field(values, "date"))
        token = form.read(lambda: _form_token(values))
        if form.errors or amount is None or paid_on is None or token is None:
            form.add(
                payments.payment_problems(
                    paid_on=paid_on,
                    amount=amount,
                    today=today(),
                    notice_number=values["notice_number"],
                    cadastral_number=values["cadastral_number"],
                )
            )
        else:
            try:
                result = payments.record_payment(
                    session=db,
                    actor=me().actor,
                    district_id=district_id,
                    paid_on=paid_on,
                    amount=amount,
                    today=today(),
                    key=payments.form_key(district_id, token),
                    reference=values["reference"],
                    notice_number=values["notice_number"],
                    cadastral_number=values["cadastral_number"],
                )
            except InputError as exc:
                db.rollback()
                form.failed(exc)
        errors = form.errors
        if not errors:
            db.commit()
            if result.booked:
                flash(_("Payment booked."))
                from tid.i18n import money

                for application in result.applied:
                    flash(
                        _(
                            "%(amount)s applied to bill %(bill)s; %(left)s still owed on it.",
                            amount=money(application.applied),
                            bill=application.bill_id,
                            left=money(application.outstanding_after),
                        )
                    )
                if result.credit:
                    flash(
                        _(
                            "%(amount)s more than was owed: held as the owner's credit.",
                            amount=money(result.credit),
                        ),
                        "warning",
                    )
            else:
                flash(_("This payment was already booked; nothing was added."), "warning")
            return redirect(url_for("account.payments_page", district_id=district_id))
    if not _TOKEN.fullmatch(values["token"]):
        values["token"] = secrets.token_urlsafe(16)
    if not values["date"]:
        values["date"] = today().isoformat()
    fy = _fy(district_id)
    rows = ledger.journal_page(
        db,
        district_id,
        since=fy.start,
        until=fy.end,
        kinds=("payment", "reversal"),
        newest_first=True,
        counted=False,
        per_page=FIRST_ROWS,  # the latest; the journal has them all
    ).rows
    return render_template(
        "account/payments.html",
        district=district,
        values=values,
        errors=errors,
        rows=rows,
        shown=FIRST_ROWS,
        may_write=may_write_district(district),
        import_errors=[],
    ), (422 if errors else 200)


@bp.route("/<int:district_id>/payments/import", methods=["GET", "POST"])
@require(*WRITERS)
def payments_import(district_id: int) -> Any:
    district = visible_district(district_id)
    _writer(district)
    if request.method == "GET":  # a reload of a refused import: the payments page
        return redirect(url_for("account.payments_page", district_id=district_id))
    db = get_session()
    upload = request.files.get("file")
    import_errors: list[dict[str, Any]] = []
    if upload is None or not upload.filename:
        import_errors.append(
            {"row": None, "field": "file", "message": _("Choose the bank's file.")}
        )
    else:
        data = upload.read(payments.MAX_DEPOSIT_BYTES + 1)
        if len(data) > payments.MAX_DEPOSIT_BYTES:
            import_errors.append(
                {"row": None, "field": "file", "message": _("The file is too large.")}
            )
        else:
            try:
                result = payments.import_deposits(
                    session=db, actor=me().actor, district_id=district_id, data=data, today=today()
                )
            except FindingsError as exc:
                db.rollback()
                import_errors = [
                    {"row": f.row, "field": f.field, "message": say(f.message)}
                    for f in exc.findings
                ]
            except InputError as exc:
                db.rollback()
                import_errors = [{"row": None, "field": exc.field, "message": say(exc.message)}]
            else:
                db.commit()
                flash(
                    _(
                        "%(booked)s deposits booked, %(already)s already in the journal.",
                        booked=result.booked,
                        already=result.already_booked,
                    )
                )
                return redirect(url_for("account.payments_page", district_id=district_id))
    values = {name: "" for name in _PAYMENT_FIELDS}
    values["token"] = secrets.token_urlsafe(16)
    values["date"] = today().isoformat()
    return render_template(
        "account/payments.html",
        district=district,
        values=values,
        errors={},
        rows=[],
        shown=FIRST_ROWS,
        may_write=True,
        import_errors=import_errors,
    ), 422


@bp.route("/<int:district_id>/entries/<int:entry_id>/reverse", methods=["POST"])
@require(*WRITERS)
def reverse(district_id: int, entry_id: int) -> Any:
    district = visible_district(district_id)
    _writer(district)
    db = get_session()

    entry = db.get(JournalEntry, entry_id)
    if entry is None or entry.district_id != district_id:
        abort(404)
    try:
        on = _date_field({"date": request.form.get("date") or today().isoformat()}, "date")
        ledger.reverse_entry(
            db,
            actor=me().actor,
            entry_id=entry_id,
            on=on,
            reason=request.form.get("reason", ""),
            today=today(),
        )
    except CapExceededError as exc:
        db.rollback()
        flash(f"{_(exc.message, rate=rate(exc.figures.rate))} {_cap_text(exc.figures)}", "error")
    except InputError as exc:
        db.rollback()
        flash(say(exc.message), "error")
    else:
        db.commit()
        flash(_("Entry reversed."))
    back = request.form.get("back", "")
    if not back.startswith(f"/account/{district_id}") or "//" in back or "\\" in back:
        back = url_for("account.journal", district_id=district_id)  # never another site
    return redirect(back)


# --------------------------------------------------------------------------- journal


@bp.route("/<int:district_id>/journal")
@require(*READERS)
def journal(district_id: int) -> Any:
    district = visible_district(district_id)
    fy = _fy(district_id)
    page = ledger.journal_page(
        get_session(), district_id, since=fy.start, until=fy.end, page=_page()
    )
    return render_template(
        "account/journal.html",
        district=district,
        fy=fy,
        rows=page.rows,
        result=page,
        may_write=may_write_district(district),
        today=today(),
    )


# --------------------------------------------------------------------------- expenditures

_EXPENDITURE_FIELDS = (
    "date",
    "amount",
    "payee",
    "description",
    "reference",
    "category",
    "token",
)


def _expenditures_view(
    db: Session,
    district: District,
    values: dict[str, str],
    errors: dict[str, str],
    cap_text: str,
    fy: FiscalYear,
) -> Any:
    """The expenditures page of a fiscal year: its form (kept values, errors, the cap's
    refusal) and the year's expenditures."""
    district_id = district.id or 0
    if not _TOKEN.fullmatch(values["token"]):
        values["token"] = secrets.token_urlsafe(16)
    if not values["date"]:
        # A new expenditure is dated today when today is in the year shown, else on the
        # year's last day (it counts in the fiscal year of its date).
        values["date"] = min(today(), fy.end).isoformat()
    purposes = expenditures.purposes(db, district_id)
    names = {p.id: p.name for p in purposes}
    figures = ledger.cap_figures(db, district_id, fy)
    options = [("admin", _("Administrative (%(rate)s cap)", rate=rate(figures.rate)))] + [
        (str(p.id), p.name) for p in purposes if p.active
    ]
    return render_template(
        "account/expenditures.html",
        district=district,
        values=values,
        errors=errors,
        cap_text=cap_text,
        options=options,
        names=names,
        rows=list(
            reversed(expenditures.expenditures(db, district_id, since=fy.start, until=fy.end))
        ),
        figures=figures,
        may_write=may_write_district(district),
        fy=fy,
        current_fy=fiscal_year_of(today()),
    ), (422 if errors else 200)


@bp.route("/<int:district_id>/expenditures", methods=["GET", "POST"])
@require(*READERS)
def expenditures_page(district_id: int) -> Any:
    district = visible_district(district_id)
    db = get_session()
    errors: dict[str, str] = {}
    cap_text = ""
    values = {name: request.form.get(name, "") for name in _EXPENDITURE_FIELDS}
    # One fiscal year throughout: the one chosen (?fy=, by default as _fy says); after a
    # booking or a refusal, the fiscal year of the expenditure's date.
    fy = _fy(district_id)
    if request.method == "POST":
        _writer(district)
        category = values["category"]
        administrative = category == "admin"
        purpose_id = parse_id(category)
        form = Form(rename={"purpose": "category"})
        amount = form.read(lambda: _money_field(values, "amount"))
        spent_on = form.read(lambda: _date_field(values, "date"))
        token = form.read(lambda: _form_token(values))
        if form.errors or amount is None or spent_on is None or token is None:
            form.add(
                expenditures.expenditure_problems(
                    session=db,
                    district_id=district_id,
                    spent_on=spent_on,
                    amount=amount,
                    payee=values["payee"],
                    today=today(),
                    administrative=administrative,
                    purpose_id=purpose_id,
                )
            )
        else:
            try:
                result = expenditures.record_expenditure(
                    session=db,
                    actor=me().actor,
                    district_id=district_id,
                    spent_on=spent_on,
                    amount=amount,
                    payee=values["payee"],
                    today=today(),
                    key=f"expenditure:{district_id}:form:{token}",
                    administrative=administrative,
                    purpose_id=purpose_id,
                    description=values["description"],
                    reference=values["reference"],
                )
            except CapExceededError as exc:
                db.rollback()
                msgid, params = expenditures.cap_message(exc.figures)
                form.errors["amount"] = _(msgid, **{**params, "rate": rate(exc.figures.rate)})
                cap_text = _cap_text(exc.figures)
                fy = exc.figures.fiscal_year
            except InputError as exc:
                db.rollback()
                form.failed(exc)
        errors = form.errors
        if not errors:
            db.commit()
            flash(
                _("Expenditure booked.")
                if result.booked
                else _("This expenditure was already booked; nothing was added.")
            )
            return redirect(
                url_for(
                    "account.expenditures_page",
                    district_id=district_id,
                    fy=fiscal_year_of(spent_on).label if spent_on else None,
                )
            )
        if errors and "date" not in errors:
            with contextlib.suppress(InputError):
                fy = fiscal_year_of(_date_field(values, "date"))
    return _expenditures_view(db, district, values, errors, cap_text, fy)


@bp.route("/<int:district_id>/purposes", methods=["GET", "POST"])
@require(*READERS)
def purposes(district_id: int) -> Any:
    district = visible_district(district_id)
    db = get_session()
    errors: dict[str, str] = {}
    values = {n: request.form.get(n, "") for n in ("name", "ordinance_reference")}
    if request.method == "POST":
        _writer(district)
        try:
            expenditures.add_purpose(
                session=db,
                actor=me().actor,
                district_id=district_id,
                name=values["name"],
                ordinance_reference=values["ordinance_reference"],
            )
        except InputError as exc:
            db.rollback()
            errors[exc.field] = say(exc.message)
        else:
            db.commit()
            flash(_("Purpose recorded."))
            return redirect(url_for("account.purposes", district_id=district_id))
    return render_template(
        "account/purposes.html",
        district=district,
        purposes=expenditures.purposes(db, district_id),
        values=values,
        errors=errors,
        may_write=may_write_district(district),
    ), (422 if errors else 200)


@bp.route("/<int:district_id>/purposes/<int:purpose_id>/active", methods=["POST"])
@require(*WRITERS)
def purpose_active(district_id: int, purpose_id: int) -> Any:
    district = visible_district(district_id)
    _writer(district)
    db = get_session()
    from tid.models import AuthorizedPurpose

    purpose = db.get(AuthorizedPurpose, purpose_id)
    if purpose is None or purpose.district_id != district_id:
        abort(404)
    active = request.form.get("active") == "1"
    expenditures.set_purpose_active(
        session=db,
        actor=me().actor,
        purpose_id=purpose_id,
        active=active,
    )
    db.commit()
    flash(_("Purpose reactivated.") if active else _("Purpose retired."))
    return redirect(url_for("account.purposes", district_id=district_id))


# --------------------------------------------------------------------------- bank


@bp.route("/<int:district_id>/bank", methods=["GET", "POST"])
@require(*READERS)
def bank(district_id: int) -> Any:
    district = visible_district(district_id)
    db = get_session()
    errors: dict[str, str] = {}
    values = {n: request.form.get(n, "") for n in ("as_of", "balance", "note")}
    if request.method == "POST":
        _writer(district)
        form = Form()
        balance = form.read(lambda: _money_field(values, "balance"))
        as_of = form.read(lambda: _date_field(values, "as_of"))
        if balance is not None and as_of is not None:
            form.write(
                lambda: audit_statement.record_bank_balance(
                    session=db,
                    actor=me().actor,
                    district_id=district_id,
                    as_of=as_of,
                    balance=balance,
                    today=today(),
                    note=values["note"],
                )
            )
        done = form.saved(
            _("Bank balance recorded."), url_for("account.bank", district_id=district_id)
        )
        if done:
            return done
        errors = form.errors
    return render_template(
        "account/bank.html",
        district=district,
        checks=audit_statement.bank_checks(db, district_id),
        values=values,
        errors=errors,
        may_write=may_write_district(district),
    ), (422 if errors else 200)


# --------------------------------------------------------------------------- delinquency


def _page() -> int:
    return parse_page(request.args.get("page", "1"))


def _terms_values(terms: LateChargeTerms | None) -> dict[str, str]:
    """The late-payment terms' form: what was sent, else the terms recorded."""
    return {
        name: request.form.get(name, getattr(terms, name) if terms else "")
        for name in ("surcharge_rate", "annual_interest_rate", "ordinance_reference")
    }


@bp.route("/<int:district_id>/delinquency", methods=["GET", "POST"])
@require(*READERS)
def delinquency(district_id: int) -> Any:
    district = visible_district(district_id)
    db = get_session()
    errors: dict[str, str] = {}
    wanted = request.args.get("cadastral", "").strip()[:30]
    if wanted:
        found = account_reads.property_by_cadastral(db, district_id, wanted)
        if found is not None:
            return redirect(
                url_for("account.property_liens", district_id=district_id, property_id=found.id)
            )
        errors["cadastral"] = _("There is no property with this cadastral number here.")
    if request.method == "POST":
        _writer(district)
        values = _terms_values(liens.late_terms(db, district_id))
        form = Form()
        form.write(
            lambda: liens.set_late_terms(
                session=db, actor=me().actor, district_id=district_id, **values
            )
        )
        done = form.saved(
            _("Late-payment terms saved."), url_for("account.delinquency", district_id=district_id)
        )
        if done:
            return done
        errors.update(form.errors)
    result = liens.delinquency_page(db, district_id, today(), page=_page())
    if request.method != "POST":  # the terms the page's charges were figured with
        values = _terms_values(result.terms)
    return render_template(
        "account/delinquency.html",
        district=district,
        rows=result.rows,
        result=result,
        large=_large(district_id, {"delinquency": result.total, "delinquency.csv": result.total}),
        values=values,
        errors=errors,
        wanted=wanted,
        may_write=may_write_district(district),
        today=today(),
    ), (422 if errors else 200)


@bp.route("/<int:district_id>/delinquency.csv")
@require(*READERS)
def delinquency_csv(district_id: int) -> Any:
    district = visible_district(district_id)
    if too_large(district, "delinquency.csv"):
        return _prepare_instead(district, "delinquency.csv")
    return _send(
        account_documents.delinquency_csv(get_session(), district=district_id, locale=language())
    )


@bp.route("/<int:district_id>/delinquency.pdf")
@require(*READERS)
def delinquency_pdf(district_id: int) -> Any:
    district = visible_district(district_id)
    if too_large(district, "delinquency"):
        return _prepare_instead(district, "delinquency")
    return _send(
        account_documents.delinquency_pdf(get_session(), district=district_id, locale=language())
    )


# --------------------------------------------------------------------------- large documents

# The documents of the account that grow with the district, and the page each belongs to.
# One of more rows than IN_REQUEST_ROWS (its kind's) is prepared in the background (a job
# with its progress on the page), so no request renders thousands of rows.
DOCUMENTS: dict[str, tuple[str, str]] = {
    "statement": ("pdf", "account.statement"),
    "delinquency": ("pdf", "account.delinquency"),
    "delinquency.csv": ("csv", "account.delinquency"),
    "aging.csv": ("csv", "account.statement"),
    "journal.csv": ("csv", "account.statement"),
}
IN_REQUEST_ROWS = {"pdf": 400, "csv": 5000}


def _statement_documents(aging: int, entries: int) -> dict[str, int]:
    """The rows of each of the statement's documents: its PDF has the receivables and the
    entries, each CSV file one of them."""
    return {"statement": aging + entries, "aging.csv": aging, "journal.csv": entries}


def _is_large(rows: dict[str, int]) -> dict[str, bool]:
    """Which of these documents are prepared in the background."""
    return {name: n > IN_REQUEST_ROWS[DOCUMENTS[name][0]] for name, n in rows.items()}


def _large(district_id: int, rows: dict[str, int]) -> dict[str, bool]:
    """Which of a page's documents are prepared in the background, with their latest jobs
    read at once for the page's buttons."""
    large = _is_large(rows)
    targets = [f"pdf:{name}:{district_id}" for name in rows if large[name]]
    look_up_latest_jobs(targets, "account.pdf")
    return large


def document_rows(district: District, which: str) -> int:
    """How many rows the document has (from the indexed counts and the entries' count per
    day, not the rows)."""
    db = get_session()
    district_id = district.id or 0
    if which in ("delinquency", "delinquency.csv"):
        return liens.delinquency_page(db, district_id, today(), per_page=1).total
    fy = _fy(district_id)
    aging = journal = 0
    if which in ("statement", "aging.csv"):
        aging = audit_statement.aging_page(db, district_id, fy.end, limit=0).count
    if which in ("statement", "journal.csv"):
        journal = ledger.entries_count(db, district_id, since=fy.start, until=fy.end)
    return _statement_documents(aging, journal)[which]


def too_large(district: District, which: str) -> bool:
    """The document is prepared in the background rather than in the request."""
    return _is_large({which: document_rows(district, which)})[which]


def _prepare_instead(district: District, which: str) -> Any:
    """A link to a large document (bookmarked, say): back to its page, which prepares it."""
    flash(
        _(
            "This document has thousands of rows: prepare it in the background with the "
            "button below, and it will be ready to download here."
        ),
        "warning",
    )
    query: dict[str, Any] = {k: request.args[k] for k in ("fy", "booked_by") if request.args.get(k)}
    return redirect(url_for(DOCUMENTS[which][1], district_id=district.id, **query), code=303)


# --------------------------------------------------------------------------- liens


def _property(district: District, property_id: int) -> Property:
    prop = account_reads.district_property(get_session(), district.id or 0, property_id)
    if prop is None:
        abort(404)
    return prop


@bp.route("/<int:district_id>/properties/<int:property_id>/liens", methods=["GET", "POST"])
@require(*READERS)
def property_liens(district_id: int, property_id: int) -> Any:
    district = visible_district(district_id)
    prop = _property(district, property_id)
    db = get_session()
    errors: dict[str, str] = {}
    fields = ("kind", "holder", "constituted_on", "amount", "reference")
    values = {n: request.form.get(n, "") for n in fields}
    if request.method == "POST":
        _writer(district)
        form = Form()
        amount = form.read(lambda: _money_field(values, "amount"))
        constituted_on = form.read(lambda: _date_field(values, "constituted_on"))
        if amount is None or constituted_on is None:
            form.add(
                liens.lien_problems(
                    kind=values["kind"],
                    holder=values["holder"],
                    constituted_on=constituted_on,
                    amount=amount,
                    today=today(),
                )
            )
        else:
            form.write(
                lambda: liens.add_lien(
                    session=db,
                    actor=me().actor,
                    property_id=property_id,
                    kind=values["kind"],
                    holder=values["holder"],
                    constituted_on=constituted_on,
                    amount=amount,
                    today=today(),
                    reference=values["reference"],
                )
            )
        done = form.saved(
            _("Lien recorded."),
            url_for("account.property_liens", district_id=district_id, property_id=property_id),
        )
        if done:
            return done
        errors = form.errors
    sale_text = request.args.get("sale_price", "")
    sale: Decimal | None = None
    if sale_text:
        try:
            sale = _money_field({"sale_price": sale_text}, "sale_price")
            if sale < 0:
                raise InputError("sale_price", N_("The sale price cannot be negative."))
        except InputError as exc:
            errors["sale_price"] = say(exc.message)
            sale = None
    view = liens.lien_priority(db, prop, today(), sale_proceeds=sale)
    paid = {(p.id, p.part): p for p in view.result.distribution or ()}
    credit = sum(payments.credit_by_bill(db, district_id, property_id).values(), Decimal("0.00"))
    return render_template(
        "account/liens.html",
        **account_documents.liens_context(db, district, view, today()),
        paid=paid,
        sale_text=sale_text,
        values=values,
        errors=errors,
        kinds=[(k, str(_(LIEN_KINDS[k].label))) for k in _LIEN_KINDS],
        credit=credit,
        token=secrets.token_urlsafe(16),
        may_write=may_write_district(district),
    ), (422 if errors else 200)


@bp.route("/<int:district_id>/properties/<int:property_id>/apply-credit", methods=["POST"])
@require(*WRITERS)
def apply_credit(district_id: int, property_id: int) -> Any:
    district = visible_district(district_id)
    _writer(district)
    prop = _property(district, property_id)
    db = get_session()
    try:
        token = _form_token({"token": request.form.get("token", "")})
        result = payments.apply_credit(
            session=db,
            actor=me().actor,
            district_id=district_id,
            property_id=prop.id or 0,
            on=today(),
            today=today(),
            key=f"credit:{district_id}:form:{token}",
        )
    except InputError as exc:
        db.rollback()
        flash(say(exc.message), "error")
    else:
        db.commit()
        from tid.i18n import money

        flash(_("%(amount)s of the owner's credit applied.", amount=money(result.amount)))
    return redirect(
        url_for("account.property_liens", district_id=district_id, property_id=property_id)
    )


@bp.route("/<int:district_id>/properties/<int:property_id>/lien-certificate.pdf")
@require(*READERS)
def lien_certificate(district_id: int, property_id: int) -> Any:
    district = visible_district(district_id)
    _property(district, property_id)
    document = account_documents.lien_certificate(
        get_session(), district=district_id, property=property_id, locale=language()
    )
    return _send(document)


# --------------------------------------------------------------------------- statement


def _booked_by() -> date | None:
    """``?booked_by=2025-09-15``: the journal as it stood at the end of that day (Puerto
    Rico), to reproduce a statement already issued."""
    raw = request.args.get("booked_by", "")
    if not raw:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        abort(404)


@bp.route("/<int:district_id>/statement")
@require(*READERS)
def statement(district_id: int) -> Any:
    district = visible_district(district_id)
    fy = _fy(district_id)
    context = account_reads.statement_page_context(
        get_session(),
        district,
        fy,
        booked_by=_booked_by(),
        today=today(),
    )
    return render_template(
        "account/statement.html",
        lock=year_locks.lock_of(get_session(), district_id, fy),
        large=_large(
            district_id, _statement_documents(context["aging_count"], context["entries_count"])
        ),
        may_lock=policy.may_lock_years(me()),
        **context,
    )


@bp.route("/<int:district_id>/years/<fiscal_year>/lock", methods=["POST"])
@require("admin")
def year_lock(district_id: int, fiscal_year: str) -> Any:
    """Lock a closed fiscal year once its statement is issued (or lift the lock)."""
    visible_district(district_id)
    try:
        fy = parse_fiscal_year(fiscal_year)
    except InputError:
        abort(404)
    db = get_session()
    if request.form.get("unlock") == "1":
        year_locks.unlock_year(session=db, actor=me().actor, district_id=district_id, fy=fy)
        db.commit()
        flash(_("FY %(fy)s is open again.", fy=fy.label), "warning")
    else:
        try:
            year_locks.lock_year(
                session=db, actor=me().actor, district_id=district_id, fy=fy, today=today()
            )
        except InputError as exc:
            db.rollback()
            flash(say(exc.message), "error")
        else:
            db.commit()
            flash(_("FY %(fy)s is locked.", fy=fy.label))
    return redirect(url_for("account.statement", district_id=district_id, fy=fy.label))


@bp.route("/<int:district_id>/statement.csv")
@require(*READERS)
def statement_csv(district_id: int) -> Any:
    district = visible_district(district_id)
    fy = _fy(district_id)
    part = request.args.get("part", "statement")
    if part not in ("aging", "journal", "statement"):
        abort(404)
    if part != "statement" and too_large(district, f"{part}.csv"):
        return _prepare_instead(district, f"{part}.csv")
    document = account_documents.statement_part_csv(
        get_session(),
        district=district_id,
        part=part,
        year=fy,
        booked_by=_booked_by(),
        locale=language(),
    )
    return _send(document)


@bp.route("/<int:district_id>/statement.pdf")
@require(*READERS)
def statement_pdf(district_id: int) -> Any:
    district = visible_district(district_id)
    fy = _fy(district_id)
    if too_large(district, "statement"):
        return _prepare_instead(district, "statement")
    document = account_documents.statement_pdf(
        get_session(), district=district_id, year=fy, booked_by=_booked_by(), locale=language()
    )
    return _send(document)
