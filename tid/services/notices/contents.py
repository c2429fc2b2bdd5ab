"""What one notice says: the bill, its property and owner, the ordinance and the sender, put
together as the :class:`tid.render.notice.NoticeContent` that is rendered; and the notice's kind
(initial for the ordinance's first fiscal year, yearly after).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlmodel import Session

from tid.models import Bill, BillingRun, District, Municipality, NoticeKind, Ordinance, PropertyYear
from tid.render import notice as notice_pdf
from tid.rules import params, periods
from tid.rules.errors import N_, InputError
from tid.services.notices.access_codes import portal_url


@dataclass(frozen=True)
class BillForNotice:
    bill: Bill
    year: PropertyYear
    cadastral_number: str


def mailing_lines(year: PropertyYear) -> tuple[str, ...]:
    """The owner's mailing address as lines for the window envelope (Puerto Rico style:
    urbanization line first, then street, then city, state and ZIP)."""
    last = " ".join(p for p in (year.mailing_city, year.mailing_state, year.mailing_zip) if p)
    lines = (year.mailing_urbanization, year.mailing_line1, year.mailing_line2, last)
    return tuple(line.strip() for line in lines if line and line.strip())


def text_lines(text: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def _ordinance_first_fy(ordinance: Ordinance) -> periods.FiscalYear | None:
    if ordinance.approved_on is None:
        return None
    return periods.fiscal_year_of(ordinance.approved_on)


def kind_for_run(ordinance: Ordinance, run: BillingRun) -> str:
    """Initial notice for the ordinance's first fiscal year, yearly for every later one."""
    first = _ordinance_first_fy(ordinance)
    if first is None or run.fiscal_year <= first.label:
        return NoticeKind.INITIAL.value
    return NoticeKind.YEARLY.value


@dataclass(frozen=True)
class BatchContext:
    district: District
    municipality: Municipality
    ordinance: Ordinance
    run: BillingRun
    lien_effective_on: date


def batch_context(*, session: Session, run: BillingRun) -> BatchContext:
    district = session.get(District, run.district_id)
    ordinance = session.get(Ordinance, run.ordinance_id)
    if district is None or ordinance is None:
        raise InputError("billing_run", N_("This billing run has no district or ordinance."))
    municipality = session.get(Municipality, district.municipality_id)
    if municipality is None:  # pragma: no cover - a foreign key guarantees it
        raise InputError("billing_run", N_("This billing run has no district or ordinance."))
    setting = params.district_setting("lien_act_effective_date")
    effective = setting.value if isinstance(setting.value, date) else date(2010, 1, 15)
    return BatchContext(district, municipality, ordinance, run, effective)


def notice_content(
    ctx: BatchContext,
    item: BillForNotice,
    *,
    number: str,
    code: str,
    kind: str,
    issued_on: date,
    sender_name: str,
    sender_lines: tuple[str, ...],
    how_to_pay: str,
    how_to_pay_en: str,
    base_url: str,
    owner_name: str | None = None,
    address: tuple[str, ...] | None = None,
    remailing_of: str = "",
) -> notice_pdf.NoticeContent:
    bill = item.bill
    ordinance = ctx.ordinance
    return notice_pdf.NoticeContent(
        number=number,
        access_code=code,
        portal_url=portal_url(base_url, number),
        issued_on=issued_on,
        kind=kind,
        sender_name=sender_name,
        sender_lines=sender_lines,
        association_name=ordinance.association_name or ctx.district.association_name,
        district_name=ordinance.district_name or ctx.district.name,
        municipality_name=ctx.municipality.name,
        ordinance_number=ordinance.number,
        ordinance_issued_on=ordinance.issued_on,
        ordinance_approved_on=ordinance.approved_on,
        term_years=ordinance.term_years,
        period_label=bill.fiscal_year,
        cadastral_number=item.cadastral_number,
        property_address=item.year.physical_address,
        owner_name=owner_name if owner_name is not None else item.year.owner_names,
        mailing_lines=address if address is not None else mailing_lines(item.year),
        amount=bill.amount,
        explanation=bill.explanation,
        explanation_es=bill.explanation_es or "",
        due_on=bill.due_date,
        how_to_pay=how_to_pay,
        how_to_pay_en=how_to_pay_en,
        lien_effective_on=ctx.lien_effective_on,
        remailing_of=remailing_of,
    )
