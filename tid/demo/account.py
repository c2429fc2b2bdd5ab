"""The Condado treasurer's demo: a district with a year of its special account — an approved
ordinance, a billed roll, a month of bank deposits, expenditures within the administrative
cap, the bank's balance, late-payment terms and a delinquent property's liens."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from sqlmodel import Session, select

from tid.demo import records
from tid.demo.base import (
    DEMO_ACTOR,
    DEMO_PASSWORD,
    demo_folder,
    municipality_and_district,
    write_file,
)
from tid.demo.roll import DEMO_FORMULA, roll_csv
from tid.models import (
    AuthorizedPurpose,
    Bill,
    BillStatus,
    District,
    Municipality,
    Notice,
    Ordinance,
    PetitionState,
    Property,
    User,
)
from tid.rules.periods import parse_fiscal_year
from tid.services import billing, ledger, roll
from tid.services.account import audit_statement, expenditures, payments
from tid.services.audit_trail import audit
from tid.services.auth import users
from tid.services.budget import planning as budget_planning
from tid.services.liens import impost_lien as liens

ACCOUNT_DISTRICT = "Distrito de Mejoramiento Turístico de Condado"
ACCOUNT_FY = "2025-26"
ACCOUNT_ROLL_SIZE = 40
ACCOUNT_USER = "asociacion.condado@demo.tid.pr"  # password: DEMO_PASSWORD
ACCOUNT_TODAY = date(2025, 10, 31)  # the day the demo's bookings are made as of

# (name, the ordinance's article)
PURPOSES = (
    ("Limpieza y ornato de calles y aceras", "Art. 4(a)"),
    ("Seguridad y vigilancia del distrito", "Art. 4(b)"),
    ("Promoción turística del distrito", "Art. 4(c)"),
)
# (spent on, payee, description, purpose, amount)
PROGRAM_SPENDING = (
    (
        "2025-09-05",
        "Limpiezas del Caribe, Inc.",
        "Limpieza de aceras, septiembre",
        "Limpieza y ornato de calles y aceras",
        "4,200.00",
    ),
    (
        "2025-09-12",
        "Seguridad Condado, LLC",
        "Rondas nocturnas, septiembre",
        "Seguridad y vigilancia del distrito",
        "3,150.00",
    ),
    (
        "2025-09-20",
        "Imprenta San Juan",
        "Mapas turísticos",
        "Promoción turística del distrito",
        "980.00",
    ),
)
# The delinquent property's other liens: (kind, holder, constituted on, amount, reference)
DELINQUENT_LIENS = (
    (
        "mortgage",
        "Banco Popular de Puerto Rico",
        date(2006, 5, 18),
        "185,000.00",
        "Finca 1234, inscripción 3ª",
    ),
    ("municipal_property_tax", "CRIM", date(2024, 7, 1), "2,140.00", "Deuda contributiva 2023-24"),
    (
        "judgment",
        "Suplidores del Norte, Inc.",
        date(2023, 2, 7),
        "12,500.00",
        "Civil Núm. SJ2022CV01234",
    ),
)


def demo_deposits_path(config: Mapping[str, Any]) -> Path:
    """Where the demo's bank deposits of a month are written: ``instance/demo/…``."""
    return demo_folder(config) / "deposits-condado-2025-09.csv"


def load_account(session: Session, config: Mapping[str, Any]) -> None:
    """A second San Juan district (Condado) and its association's login (ACCOUNT_USER, the
    demo password) with an approved ordinance, a 40-property roll of
    FY 2025-26 billed on 2025-07-15, the authorized purposes, a month of bank deposits
    (``instance/demo/deposits-condado-2025-09.csv``, imported), program and administrative
    expenditures within the administrative cap, the bank's balance at the end of the month,
    late-payment terms, and a delinquent property with a mortgage, a CRIM lien and a judgment
    lien."""
    municipality, _ = municipality_and_district(session)
    district = _condado(session, municipality)
    district_id = district.id or 0
    _treasurer(session, district_id)
    _approved_ordinance(session, municipality, district)
    _billed_roll(session, district_id)
    bills = list(
        session.exec(
            select(Bill)
            .where(Bill.district_id == district_id, Bill.status == BillStatus.ACTIVE.value)
            .order_by(Bill.id)  # type: ignore[arg-type]
        )
    )
    if not bills:
        return
    purposes = _purposes(session, district_id)
    _budget(session, district_id, purposes)
    data = _deposits_csv(session, district_id, bills)
    write_file(demo_deposits_path(config), data)
    payments.import_deposits(
        session=session, actor=DEMO_ACTOR, district_id=district_id, data=data, today=ACCOUNT_TODAY
    )
    headroom = ledger_cap(session, district_id)
    _program_spending(session, district_id, purposes)
    _administrative_spending(session, district_id, headroom)
    _bank_balance(session, district_id)
    if liens.late_terms(session=session, district_id=district_id) is None:
        liens.set_late_terms(
            session=session,
            actor=DEMO_ACTOR,
            district_id=district_id,
            surcharge_rate="0.10",
            annual_interest_rate="0.06",
            ordinance_reference="Art. 7",
        )
    _delinquent_liens(session, bills[-1])


def ledger_cap(session: Session, district_id: int) -> Decimal:
    """The administrative headroom of the demo's fiscal year (after its deposits)."""
    return ledger.cap_figures(
        session=session, district_id=district_id, fy=parse_fiscal_year(ACCOUNT_FY)
    ).headroom


def _condado(session: Session, municipality: Municipality) -> District:
    """The Condado district (made, and audited, the first time)."""
    district = session.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).first()
    if district is None:
        district = records.add(
            session,
            District(
                municipality_id=municipality.id or 0,
                name=ACCOUNT_DISTRICT,
                association_name="Asociación del Distrito de Condado, Inc.",
            ),
        )
        audit.record(
            session=session,
            actor=DEMO_ACTOR,
            action="district.create",
            entity=district,
            after=audit.snapshot(district),
        )
    return district


def _treasurer(session: Session, district_id: int) -> None:
    """The Condado association's login (ACCOUNT_USER, the demo password)."""
    if session.exec(select(User).where(User.email == ACCOUNT_USER)).first() is None:
        users.create_user(
            session=session,
            actor=DEMO_ACTOR,
            email=ACCOUNT_USER,
            name="Irma Colón (Asociación DMT Condado)",
            password=DEMO_PASSWORD,
            role="association",
            district_id=district_id,
        )


def _approved_ordinance(session: Session, municipality: Municipality, district: District) -> None:
    """The ordinance of 2024, published and received by the association (its petition's
    steps are not the point of this demo: both are made directly, the ordinance audited)."""
    district_id = district.id or 0
    if session.exec(select(Ordinance).where(Ordinance.district_id == district_id)).first():
        return
    ordinance = records.ordinance(
        session,
        municipality_id=municipality.id or 0,
        district_id=district_id,
        district_name=ACCOUNT_DISTRICT,
        petitioner="Hon. Alcalde de San Juan",
        received_on=date(2024, 9, 3),
        petition={
            "state": PetitionState.PUBLISHED.value,
            "approved_on": date(2024, 12, 2),
            "published_on": date(2024, 12, 5),
            "newspaper": "El Vocero",
        },
        number="Ord. Núm. 21, Serie 2024-2025",
        expected_amount=Decimal("60000.00"),
        term_years=5,
        formula=DEMO_FORMULA,
        association_name=district.association_name,
        issued_on=date(2024, 11, 14),
        approved_on=date(2024, 12, 2),
        crim_copy_sent_on=date(2024, 12, 9),
        received_by_association_on=date(2024, 12, 10),
    )
    audit.record(
        session=session,
        actor=DEMO_ACTOR,
        action="ordinance.create",
        entity=ordinance,
        after=audit.snapshot(ordinance),
    )


def _billed_roll(session: Session, district_id: int) -> None:
    """The 40-property roll of FY 2025-26, imported and billed on 2025-07-15."""
    if (
        billing.active_run(session=session, district_id=district_id, fiscal_year=ACCOUNT_FY)
        is not None
    ):
        return
    roll.import_roll(
        session=session,
        actor=DEMO_ACTOR,
        district_id=district_id,
        fiscal_year=ACCOUNT_FY,
        data=roll_csv(ACCOUNT_ROLL_SIZE, seed=1952),
        file_name="roll-condado-2025-26.csv",
    )
    billing.run_billing(
        session=session,
        actor=DEMO_ACTOR,
        district_id=district_id,
        fiscal_year=ACCOUNT_FY,
        run_on=date(2025, 7, 15),
        due_date=date(2025, 9, 30),
    )
    session.flush()


def _purposes(session: Session, district_id: int) -> dict[str, AuthorizedPurpose]:
    """The purposes the ordinance authorizes, by name."""
    purposes = {p.name: p for p in expenditures.purposes(session=session, district_id=district_id)}
    for name, article in PURPOSES:
        if name not in purposes:
            purposes[name] = expenditures.add_purpose(
                session=session,
                actor=DEMO_ACTOR,
                district_id=district_id,
                name=name,
                ordinance_reference=article,
            )
    return purposes


# The budget's share of the expected collections by line (administration within the cap).
BUDGET_SHARES = (
    ("admin", "0.04"),
    ("Limpieza y ornato de calles y aceras", "0.45"),
    ("Seguridad y vigilancia del distrito", "0.35"),
    ("Promoción turística del distrito", "0.10"),
)


def _budget(session: Session, district_id: int, purposes: Mapping[str, AuthorizedPurpose]) -> None:
    """The year's budget, drafted at 95% of the billing (the district's first year), approved
    by the board in June and amended in October for the year's promotion."""
    fy = parse_fiscal_year(ACCOUNT_FY)
    if budget_planning.budget_of(session=session, district_id=district_id, fy=fy) is not None:
        return
    offer = budget_planning.proposal(session=session, district_id=district_id, fy=fy)
    expected = offer.billed * Decimal("0.95")

    def plan(promotion: str) -> budget_planning.Plan:
        shares = dict(BUDGET_SHARES) | {"Promoción turística del distrito": promotion}
        return budget_planning.Plan(
            billed=offer.billed,
            collection_rate=Decimal("0.95"),
            rate_reason="Primer año del distrito: el estimado de la junta.",
            lines={
                key if key == "admin" else str(purposes[key].id): (
                    expected * Decimal(share)
                ).quantize(Decimal("0.01"))
                for key, share in shares.items()
            },
        )

    common = dict(session=session, actor=DEMO_ACTOR, district_id=district_id, fy=fy)
    budget_planning.draft_budget(plan=plan("0.10"), today=date(2025, 6, 10), **common)  # type: ignore[arg-type]
    budget_planning.approve_budget(
        approved_on=date(2025, 6, 26),
        minutes="Acta de la junta, 26 de junio de 2025",
        today=date(2025, 6, 26),
        **common,  # type: ignore[arg-type]
    )
    budget_planning.amend_budget(
        plan=plan("0.12"),
        reason="Campaña de promoción de la temporada alta",
        today=date(2025, 10, 15),
        **common,  # type: ignore[arg-type]
    )


def _deposits_csv(session: Session, district_id: int, bills: list[Bill]) -> bytes:
    """A month of deposits: every bill paid in September except the last two (one partly);
    one owner overpays (the excess is held as credit)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["fecha", "monto", "referencia", "catastro", "aviso"])
    prop_numbers = {
        p.id: p.cadastral_number
        for p in session.exec(select(Property).where(Property.district_id == district_id))
    }
    # the number on each owner's notice, as the owner quotes it on the deposit slip
    notice_numbers = {
        n.bill_id: n.number
        for n in session.exec(select(Notice).where(Notice.district_id == district_id))
    }
    for i, bill in enumerate(bills[:-2]):
        paid = bill.amount + (Decimal("25.00") if i == 3 else Decimal(0))
        day = date(2025, 9, 1 + (i % 29))
        number = notice_numbers.get(bill.id or 0)
        cadastral = "" if number else prop_numbers[bill.property_id]
        writer.writerow([day.isoformat(), str(paid), f"CDO-{9000 + i}", cadastral, number or ""])
    partial = bills[-2]
    writer.writerow(
        [
            "2025-09-29",
            str((partial.amount / 2).quantize(Decimal("0.01"))),
            "CDO-8999",
            prop_numbers[partial.property_id],
            "",
        ]
    )
    return out.getvalue().encode("utf-8")


def _program_spending(
    session: Session, district_id: int, purposes: Mapping[str, AuthorizedPurpose]
) -> None:
    """September's spending on the authorized purposes."""
    for spent_on, payee, what, purpose, spent in PROGRAM_SPENDING:
        expenditures.record_expenditure(
            session=session,
            actor=DEMO_ACTOR,
            district_id=district_id,
            spent_on=date.fromisoformat(spent_on),
            amount=Decimal(spent.replace(",", "")),
            payee=payee,
            description=what,
            today=ACCOUNT_TODAY,
            key=f"demo:{district_id}:{spent_on}:{payee}",
            purpose_id=purposes[purpose].id,
        )


def _administrative_spending(session: Session, district_id: int, headroom: Decimal) -> None:
    """Half the administrative headroom spent on bookkeeping: within the cap (§ 6653(6))."""
    admin = (headroom / 2).quantize(Decimal("0.01"))
    if admin > 0:
        expenditures.record_expenditure(
            session=session,
            actor=DEMO_ACTOR,
            district_id=district_id,
            spent_on=date(2025, 9, 30),
            amount=admin,
            payee="Contabilidad Rivera, CPA",
            description="Teneduría de libros, septiembre",
            today=ACCOUNT_TODAY,
            key=f"demo:{district_id}:admin:2025-09",
            administrative=True,
        )


def _bank_balance(session: Session, district_id: int) -> None:
    """The bank's balance at the end of September: the books less the bank's monthly fee,
    not yet booked (a difference to reconcile)."""
    if audit_statement.bank_checks(session=session, district_id=district_id):
        return
    booked = ledger.balance(
        session=session, district_id=district_id, account=ledger.BANK, until=date(2025, 9, 30)
    )
    audit_statement.record_bank_balance(
        session=session,
        actor=DEMO_ACTOR,
        district_id=district_id,
        as_of=date(2025, 9, 30),
        balance=booked - Decimal("35.00"),
        today=ACCOUNT_TODAY,
        note="Estado de cuenta de septiembre",
    )


def _delinquent_liens(session: Session, delinquent: Bill) -> None:
    """The unpaid property's mortgage, CRIM lien and judgment lien, to rank with the
    impost's."""
    if liens.recorded_liens(session=session, property_id=delinquent.property_id):
        return
    for kind, holder, on, owed, ref in DELINQUENT_LIENS:
        liens.add_lien(
            session=session,
            actor=DEMO_ACTOR,
            property_id=delinquent.property_id,
            kind=kind,
            holder=holder,
            constituted_on=on,
            amount=Decimal(owed.replace(",", "")),
            today=ACCOUNT_TODAY,
            reference=ref,
        )
