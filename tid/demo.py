"""Demo data: a municipality, its district, and a user of every role.

Each area adds its own demo records through a loader registered in ``LOADERS``; the whole
demo is idempotent (a second ``tid demo`` changes nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from sqlmodel import Session, select

from tid.config import portal_code_secret
from tid.models import District, Municipality, User
from tid.services import audit, users

DEMO_PASSWORD = "demo-password-2026"
DEMO_DISTRICT = "Distrito de Mejoramiento Turístico del Viejo San Juan"
DEMO_ACTOR = audit.Actor("demo loader")

# (role, email, name)
DEMO_USERS = [
    ("admin", "admin@demo.tid.pr", "Ana Administradora"),
    ("clerk", "secretaria@demo.tid.pr", "Carmen Rivera (Secretaria, Legislatura Municipal)"),
    ("association", "asociacion@demo.tid.pr", "Luis Ortiz (Asociación DMT Viejo San Juan)"),
    ("auditor", "auditor@demo.tid.pr", "Rosa Méndez, CPA"),
]

Loader = Callable[[Session, Mapping[str, Any]], None]
LOADERS: list[Loader] = []


def municipality_and_district(session: Session) -> tuple[Municipality, District]:
    municipality = session.exec(select(Municipality).where(Municipality.name == "San Juan")).first()
    if municipality is None:
        municipality = Municipality(name="San Juan")
        session.add(municipality)
        session.flush()
        audit.record(
            session,
            DEMO_ACTOR,
            "municipality.create",
            municipality,
            after=audit.snapshot(municipality),
        )
    district = session.exec(
        select(District).where(
            District.name == "Distrito de Mejoramiento Turístico del Viejo San Juan"
        )
    ).first()
    if district is None:
        district = District(
            municipality_id=municipality.id or 0,
            name=DEMO_DISTRICT,
            association_name="Asociación del Distrito del Viejo San Juan, Inc.",
        )
        session.add(district)
        session.flush()
        audit.record(
            session, DEMO_ACTOR, "district.create", district, after=audit.snapshot(district)
        )
    return municipality, district


def load_demo(*, session: Session, config: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """Load (or complete) the demo and return the logins as (role, email, password)."""
    municipality, district = municipality_and_district(session)
    for role, email, name in DEMO_USERS:
        if session.exec(select(User).where(User.email == email)).first() is None:
            users.create_user(
                session=session,
                actor=DEMO_ACTOR,
                email=email,
                name=name,
                password=DEMO_PASSWORD,
                role=role,
                municipality_id=municipality.id if role == "clerk" else None,
                district_id=district.id if role == "association" else None,
            )
    session.commit()
    for loader in LOADERS:
        loader(session, config)
        session.commit()
    logins = [(role, email, DEMO_PASSWORD) for role, email, _ in DEMO_USERS]
    if session.exec(select(User).where(User.email == ACCOUNT_USER)).first() is not None:
        logins.append(("association", ACCOUNT_USER, DEMO_PASSWORD))
    return logins


# --------------------------------------------------------------------------- petitions

DEMO_PETITION_RECEIVED = "2026-03-02"  # 90 days end on Sunday 2026-05-31: due 2026-06-01


# Long: demo records, one after the other in the order a clerk makes them.
def load_petitions(session: Session, config: Mapping[str, Any]) -> None:
    """Two petitions before San Juan's legislature: one received 2026-03-02 and under study
    with three findings, one with the mayor whose 30 days end within the digest's window."""
    from datetime import date, timedelta

    from tid import clock
    from tid.models import Petition
    from tid.services import petitions

    municipality, _district = municipality_and_district(session)
    today = clock.today(config)
    today = max(today, date(2026, 3, 12))

    def exists(name: str) -> bool:
        stmt = select(Petition).where(
            Petition.municipality_id == municipality.id, Petition.district_name == name
        )
        return session.exec(stmt).first() is not None

    condado = "Distrito de Mejoramiento Turístico de Condado"
    if not exists(condado):
        petition = petitions.record_petition(
            session=session,
            actor=DEMO_ACTOR,
            municipality_id=municipality.id,
            district_name=condado,
            petitioner="Hon. Alcalde de San Juan, a petición de los comerciantes de Condado",
            received_on=DEMO_PETITION_RECEIVED,
            documents="Petición del alcalde; plano del distrito; plan de mejoras; lista de "
            "propiedades.",
            today=today,
        )
        petitions.start_study(
            session=session, actor=DEMO_ACTOR, petition=petition, on="2026-03-09", today=today
        )
        for factor, grounds in (
            ("a", "Las declaraciones de la petición fueron verificadas en vista pública."),
            ("b", "Compatible con el Plan de Ordenación Territorial de San Juan."),
            ("c", "El área es compacta: doce manzanas contiguas frente a la playa."),
        ):
            petitions.record_finding(
                session=session,
                actor=DEMO_ACTOR,
                petition=petition,
                factor=factor,
                favourable="yes",
                grounds=grounds,
                on="2026-03-11",
                today=today,
            )

    isla_verde = "Distrito de Mejoramiento Turístico de Isla Verde"
    if not exists(isla_verde):

        def ago(days: int) -> str:
            return (today - timedelta(days=days)).isoformat()

        petition = petitions.record_petition(
            session=session,
            actor=DEMO_ACTOR,
            municipality_id=municipality.id,
            district_name=isla_verde,
            petitioner="Hon. Alcalde de San Juan",
            received_on=ago(70),
            documents="Petición del alcalde y anejos.",
            today=today,
        )
        petitions.start_study(
            session=session, actor=DEMO_ACTOR, petition=petition, on=ago(65), today=today
        )
        for factor in petitions.FACTORS:
            petitions.record_finding(
                session=session,
                actor=DEMO_ACTOR,
                petition=petition,
                factor=factor,
                favourable="no" if factor == "d" else "yes",
                grounds="Informe de la Comisión de Desarrollo Económico."
                if factor != "d"
                else "La capacidad del alcantarillado es limitada (informe de AAA).",
                on=ago(40),
                today=today,
            )
        petitions.issue_ordinance(
            session=session,
            actor=DEMO_ACTOR,
            petition=petition,
            number="Ord. Núm. 14, Serie 2025-2026",
            district_name=isla_verde,
            expected_amount="1,250,000.00",
            term_years="10",
            formula="max(250.00, 0.0035 * assessed_value)",
            association_name="Asociación del Distrito de Isla Verde, Inc.",
            issued_on=ago(28),
            today=today,
        )
        petitions.send_to_mayor(
            session=session, actor=DEMO_ACTOR, petition=petition, on=ago(24), today=today
        )


LOADERS.append(load_petitions)


# --------------------------------------------------------------------------- roll and billing

DEMO_ROLL_FY = "2026-27"
DEMO_ROLL_SIZE = 500
DEMO_ORDINANCE_NUMBER = "Ord. Núm. 9, Serie 2025-2026"


def demo_roll_path(config: Mapping[str, Any]) -> Path:
    """Where the demo's roll file is written: ``instance/demo/roll-2026-27.csv``."""
    from tid.config import instance_path

    folder = Path(config.get("INSTANCE_PATH") or instance_path())
    return folder / "demo" / f"roll-{DEMO_ROLL_FY}.csv"


# Long: demo records, one after the other in the order a clerk makes them.
def load_roll(session: Session, config: Mapping[str, Any]) -> None:
    """The Viejo San Juan district's ordinance (approved, received by the association, with
    its formula) and its 500-property roll as a CSV file for the association to import
    (``tid roll import instance/demo/roll-2026-27.csv --district … --fiscal-year 2026-27``
    or the web page); the roll itself is not imported here."""
    from datetime import date

    from tid import clock
    from tid.models import Ordinance
    from tid.roll_demo import DEMO_FORMULA, roll_csv
    from tid.services import petitions

    path = demo_roll_path(config)
    data = roll_csv(DEMO_ROLL_SIZE)
    if not path.exists() or path.read_bytes() != data:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    municipality, district = municipality_and_district(session)
    if session.exec(select(Ordinance).where(Ordinance.district_id == district.id)).first():
        return
    today = clock.today(config)
    today = max(today, date(2026, 3, 20))
    petition = petitions.record_petition(
        session=session,
        actor=DEMO_ACTOR,
        municipality_id=municipality.id,
        district_name=DEMO_DISTRICT,
        petitioner="Hon. Alcalde de San Juan, a petición de la Asociación del Viejo San Juan",
        received_on="2026-01-12",
        documents="Petición del alcalde; plano del distrito; plan de mejoras; registro de "
        "propiedades del CRIM.",
        today=today,
    )
    petitions.start_study(
        session=session, actor=DEMO_ACTOR, petition=petition, on="2026-01-20", today=today
    )
    for factor in petitions.FACTORS:
        petitions.record_finding(
            session=session,
            actor=DEMO_ACTOR,
            petition=petition,
            factor=factor,
            favourable="yes",
            grounds="Informe de la Comisión de Turismo y Desarrollo Económico.",
            on="2026-02-10",
            today=today,
        )
    petitions.issue_ordinance(
        session=session,
        actor=DEMO_ACTOR,
        petition=petition,
        number=DEMO_ORDINANCE_NUMBER,
        district_name=DEMO_DISTRICT,
        expected_amount="500,000.00",
        term_years="5",
        formula=DEMO_FORMULA,
        association_name=district.association_name
        or "Asociación del Distrito del Viejo San Juan, Inc.",
        issued_on="2026-02-24",
        today=today,
    )
    petitions.send_to_mayor(
        session=session, actor=DEMO_ACTOR, petition=petition, on="2026-02-26", today=today
    )
    petitions.mayor_approves(
        session=session, actor=DEMO_ACTOR, petition=petition, on="2026-03-09", today=today
    )
    petitions.publish(
        session=session,
        actor=DEMO_ACTOR,
        petition=petition,
        on="2026-03-12",
        newspaper="El Nuevo Día",
        outside_window_confirmed=False,
        today=today,
    )
    petitions.record_crim_copy(
        session=session, actor=DEMO_ACTOR, petition=petition, on="2026-03-16", today=today
    )
    petitions.record_association_receipt(
        session=session, actor=DEMO_ACTOR, petition=petition, on="2026-03-18", today=today
    )


LOADERS.append(load_roll)


# --------------------------------------------------------------------------- the special account

ACCOUNT_DISTRICT = "Distrito de Mejoramiento Turístico de Condado"
ACCOUNT_FY = "2025-26"
ACCOUNT_ROLL_SIZE = 40
ACCOUNT_USER = "asociacion.condado@demo.tid.pr"  # password: DEMO_PASSWORD


def demo_deposits_path(config: Mapping[str, Any]) -> Path:
    """Where the demo's bank deposits of a month are written: ``instance/demo/…``."""
    from tid.config import instance_path

    folder = Path(config.get("INSTANCE_PATH") or instance_path())
    return folder / "demo" / "deposits-condado-2025-09.csv"


# Long: demo records, one after the other in the order an association makes them.
def load_account(session: Session, config: Mapping[str, Any]) -> None:
    """A second San Juan district (Condado) and its association's login (ACCOUNT_USER, the
    demo password) with an approved ordinance, a 40-property roll of
    FY 2025-26 billed on 2025-07-15, the authorized purposes, a month of bank deposits
    (``instance/demo/deposits-condado-2025-09.csv``, imported), program and administrative
    expenditures within the administrative cap, the bank's balance at the end of the month,
    late-payment terms, and a delinquent property with a mortgage, a CRIM lien and a judgment
    lien."""
    import csv
    import io
    from datetime import date
    from decimal import Decimal

    from tid.models import Bill, BillStatus, Ordinance, Petition, PetitionState, Property
    from tid.roll_demo import DEMO_FORMULA, roll_csv
    from tid.services import audit_statement, billing, expenditures, liens, payments, roll

    municipality, _ = municipality_and_district(session)
    district = session.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).first()
    if district is None:
        district = District(
            municipality_id=municipality.id or 0,
            name=ACCOUNT_DISTRICT,
            association_name="Asociación del Distrito de Condado, Inc.",
        )
        session.add(district)
        session.flush()
        audit.record(
            session, DEMO_ACTOR, "district.create", district, after=audit.snapshot(district)
        )
    district_id = district.id or 0
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
    if session.exec(select(Ordinance).where(Ordinance.district_id == district_id)).first() is None:
        petition = Petition(
            municipality_id=municipality.id or 0,
            district_name=ACCOUNT_DISTRICT,
            petitioner="Hon. Alcalde de San Juan",
            received_on=date(2024, 9, 3),
            state=PetitionState.PUBLISHED.value,
            approved_on=date(2024, 12, 2),
            published_on=date(2024, 12, 5),
            newspaper="El Vocero",
        )
        session.add(petition)
        session.flush()
        ordinance = Ordinance(
            petition_id=petition.id or 0,
            municipality_id=municipality.id or 0,
            district_id=district_id,
            number="Ord. Núm. 21, Serie 2024-2025",
            district_name=ACCOUNT_DISTRICT,
            expected_amount=Decimal("60000.00"),
            term_years=5,
            formula=DEMO_FORMULA,
            association_name=district.association_name,
            issued_on=date(2024, 11, 14),
            approved_on=date(2024, 12, 2),
            crim_copy_sent_on=date(2024, 12, 9),
            received_by_association_on=date(2024, 12, 10),
        )
        session.add(ordinance)
        session.flush()
        audit.record(
            session, DEMO_ACTOR, "ordinance.create", ordinance, after=audit.snapshot(ordinance)
        )
    if billing.active_run(session, district_id, ACCOUNT_FY) is None:
        data = roll_csv(ACCOUNT_ROLL_SIZE, seed=1952)
        roll.import_roll(
            session=session,
            actor=DEMO_ACTOR,
            district_id=district_id,
            fiscal_year=ACCOUNT_FY,
            data=data,
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
    bills = list(
        session.exec(
            select(Bill)
            .where(Bill.district_id == district_id, Bill.status == BillStatus.ACTIVE.value)
            .order_by(Bill.id)  # type: ignore[arg-type]
        )
    )
    if not bills:
        return
    today = date(2025, 10, 31)
    purposes = {p.name: p for p in expenditures.purposes(session, district_id)}
    for name, article in (
        ("Limpieza y ornato de calles y aceras", "Art. 4(a)"),
        ("Seguridad y vigilancia del distrito", "Art. 4(b)"),
        ("Promoción turística del distrito", "Art. 4(c)"),
    ):
        if name not in purposes:
            purposes[name] = expenditures.add_purpose(
                session=session,
                actor=DEMO_ACTOR,
                district_id=district_id,
                name=name,
                ordinance_reference=article,
            )
    # A month of deposits: every bill paid in September except the last two (one partly);
    # one owner overpays (the excess is held as credit).
    path = demo_deposits_path(config)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["fecha", "monto", "referencia", "catastro", "aviso"])
    prop_numbers = {
        p.id: p.cadastral_number
        for p in session.exec(select(Property).where(Property.district_id == district_id))
    }
    for i, bill in enumerate(bills[:-2]):
        paid = bill.amount + (Decimal("25.00") if i == 3 else Decimal(0))
        day = date(2025, 9, 1 + (i % 29))
        writer.writerow([day.isoformat(), str(paid), f"CDO-{9000 + i}", "", bill.id])
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
    data = out.getvalue().encode("utf-8")
    if not path.exists() or path.read_bytes() != data:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    payments.import_deposits(
        session=session, actor=DEMO_ACTOR, district_id=district_id, data=data, today=today
    )
    figures = ledger_cap(session, district_id)
    spending = [
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
    ]
    for spent_on, payee, what, purpose, spent in spending:
        expenditures.record_expenditure(
            session=session,
            actor=DEMO_ACTOR,
            district_id=district_id,
            spent_on=date.fromisoformat(spent_on),
            amount=Decimal(spent.replace(",", "")),
            payee=payee,
            description=what,
            today=today,
            key=f"demo:{district_id}:{spent_on}:{payee}",
            purpose_id=purposes[purpose].id,
        )
    admin = (figures / 2).quantize(Decimal("0.01"))  # half the headroom: within the cap
    if admin > 0:
        expenditures.record_expenditure(
            session=session,
            actor=DEMO_ACTOR,
            district_id=district_id,
            spent_on=date(2025, 9, 30),
            amount=admin,
            payee="Contabilidad Rivera, CPA",
            description="Teneduría de libros, septiembre",
            today=today,
            key=f"demo:{district_id}:admin:2025-09",
            administrative=True,
        )
    if not audit_statement.bank_checks(session, district_id):
        from tid.services import ledger

        booked = ledger.balance(session, district_id, ledger.BANK, until=date(2025, 9, 30))
        audit_statement.record_bank_balance(
            session=session,
            actor=DEMO_ACTOR,
            district_id=district_id,
            as_of=date(2025, 9, 30),
            balance=booked - Decimal("35.00"),  # the bank's monthly fee, not yet booked
            today=today,
            note="Estado de cuenta de septiembre",
        )
    if liens.late_terms(session, district_id) is None:
        liens.set_late_terms(
            session=session,
            actor=DEMO_ACTOR,
            district_id=district_id,
            surcharge_rate="0.10",
            annual_interest_rate="0.06",
            ordinance_reference="Art. 7",
        )
    delinquent = bills[-1]
    if not liens.recorded_liens(session, delinquent.property_id):
        for kind, holder, on, owed, ref in (
            (
                "mortgage",
                "Banco Popular de Puerto Rico",
                date(2006, 5, 18),
                "185,000.00",
                "Finca 1234, inscripción 3ª",
            ),
            (
                "municipal_property_tax",
                "CRIM",
                date(2024, 7, 1),
                "2,140.00",
                "Deuda contributiva 2023-24",
            ),
            (
                "judgment",
                "Suplidores del Norte, Inc.",
                date(2023, 2, 7),
                "12,500.00",
                "Civil Núm. SJ2022CV01234",
            ),
        ):
            liens.add_lien(
                session=session,
                actor=DEMO_ACTOR,
                property_id=delinquent.property_id,
                kind=kind,
                holder=holder,
                constituted_on=on,
                amount=Decimal(owed.replace(",", "")),
                today=today,
                reference=ref,
            )


def ledger_cap(session: Session, district_id: int) -> Any:
    """The administrative headroom of the demo's fiscal year (after its deposits)."""
    from tid.rules.periods import parse_fiscal_year
    from tid.services import ledger

    return ledger.cap_figures(session, district_id, parse_fiscal_year(ACCOUNT_FY)).headroom


LOADERS.append(load_account)


# --------------------------------------------------------------------------- notices


def load_notices(session: Session, config: Mapping[str, Any]) -> None:
    """The certified-mail notices of the Condado run (21 LPRA § 6653(5)): rendered and
    archived, article numbers, mailed on 2025-07-21 with the PS 3877 manifest; the first
    owner's notice delivered, the second returned unclaimed (ready to be mailed again). The
    access codes are only on the PDFs (staff can download a notice to try the portal)."""
    from datetime import date

    from tid.models import NoticeBatch
    from tid.rules.certified_mail import check_digit
    from tid.services import billing, notices

    district = session.exec(select(District).where(District.name == ACCOUNT_DISTRICT)).first()
    if district is None:
        return
    run = billing.active_run(session, district.id or 0, ACCOUNT_FY)
    if run is None:
        return
    if session.exec(select(NoticeBatch).where(NoticeBatch.district_id == district.id)).first():
        return
    batch = notices.create_batch(
        session=session,
        actor=DEMO_ACTOR,
        billing_run_id=run.id or 0,
        issued_on=date(2025, 7, 18),
        sender_name=district.association_name or "Asociación del Distrito de Condado, Inc.",
        sender_address="PO Box 19500\nSan Juan PR 00910-1500",
        how_to_pay="Cheque o giro a nombre de la Asociación, en su oficina de la Ave. Ashford "
        "1020, o por correo al apartado del remitente.",
        how_to_pay_en="Check or money order to the Association, at its office at 1020 Ashford "
        "Ave., or by mail to the sender's box.",
        portal_base_url=str(config.get("BASE_URL") or "http://127.0.0.1:5000"),
        secret=portal_code_secret(config),
        workers=1,
    )
    found = notices.batch_notices(session, batch.id or 0)
    for i, notice in enumerate(found):
        body = f"9407111899223{i + 1:08d}"
        notice.article_number = body + str(check_digit(body))
        session.add(notice)
    session.flush()
    notices.mail_batch(
        session=session,
        actor=DEMO_ACTOR,
        batch_id=batch.id or 0,
        mailed_on=date(2025, 7, 21),
        postage="0.73",
        certified_fee="4.85",
        today=date(2025, 7, 21),
    )
    for notice, status in zip(found[:2], ("delivered", "returned unclaimed"), strict=False):
        notices.record_delivery(
            session=session,
            actor=DEMO_ACTOR,
            notice_id=notice.id or 0,
            status=status,
            occurred_on=date(2025, 7, 28),
            today=date(2025, 7, 31),
        )
    session.commit()
    _write_portal_sample(session, found[0], config)


PORTAL_SAMPLE = "portal-sample.txt"


def _write_portal_sample(session: Session, notice: Any, config: Mapping[str, Any]) -> None:
    """Read the delivered notice's number and access code back from its archived PDF (the
    code is stored nowhere else) and leave them in instance/demo/ for trying the portal."""
    import io
    import re
    from pathlib import Path

    from pypdf import PdfReader

    from tid.models import ArchivedDocument

    document = session.get(ArchivedDocument, notice.pdf_sha256)
    if document is None:
        return
    text = " ".join(
        page.extract_text() or "" for page in PdfReader(io.BytesIO(document.content)).pages
    )
    found = re.search(r"\b([A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4})\b", text)
    if found is None:
        return
    from tid.config import instance_path

    folder = Path(config.get("INSTANCE_PATH") or instance_path()) / "demo"
    folder.mkdir(parents=True, exist_ok=True)
    line = f"{notice.number} {found.group(1)}\n"
    (folder / PORTAL_SAMPLE).write_text(line, encoding="utf-8")


def portal_sample(instance_path: str) -> tuple[str, str] | None:
    """The demo notice number and access code for the owner's portal, if the demo made one."""
    from pathlib import Path

    path = Path(instance_path) / "demo" / PORTAL_SAMPLE
    if not path.exists():
        return None
    number, code = path.read_text(encoding="utf-8").split()
    return number, code


LOADERS.append(load_notices)


# --------------------------------------------------------------------------- sign-in

TWO_FACTOR_OFF = "two_factor_roles = []  # the demo: no role needs two-factor sign-in\n"


def turn_off_two_factor(instance_path: str) -> bool:
    """Write ``two_factor_roles = []`` into the instance's config.toml (unless it already
    says something about it), so that the demo's logins need no authenticator app. True
    if the instance now has it off."""
    import tomllib

    path = Path(instance_path) / "config.toml"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    current = tomllib.loads(text) if text else {}
    if "two_factor_roles" not in current:
        path.parent.mkdir(parents=True, exist_ok=True)
        prefix = "" if not text or text.endswith("\n") else "\n"
        path.write_text(text + prefix + TWO_FACTOR_OFF, encoding="utf-8")
        return True
    value = current["two_factor_roles"]
    return value in ([], "", "none")
