"""The documents a property's closing needs, each issued once under a reference and a
verification code and archived as issued: the payoff quote (what the property owes through a
day, with what each day after adds), and the archived PDF of any document issued about a
property, read back by its reference."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlmodel import Session

from tid.documents.base import PDF, Document, Reader, district_of
from tid.models import IssuedDocument, Property
from tid.render.qr import qr_svg_data_uri
from tid.rules.errors import N_, InputError
from tid.rules.messages import render
from tid.services.account import account_reads
from tid.services.archive.store import archived_bytes
from tid.services.audit_trail import audit
from tid.services.closing import issued, payoffs, releases
from tid.services.liens import impost_lien as liens

NO_PROPERTY = N_("There is no such property in this district.")
NO_ISSUED = N_("There is no document with this reference in this district.")
COMMAND_LINE = "command line"


@dataclass(frozen=True)
class QuotedLine:
    fiscal_year: str
    due_date: date
    days_late: int
    impost: Decimal
    surcharge: Decimal
    interest: Decimal

    @property
    def total(self) -> Decimal:
        return self.impost + self.surcharge + self.interest


def quoted_lines(document: IssuedDocument) -> list[QuotedLine]:
    """The document's lines as it said them (fiscal year, due date, amounts)."""
    return [
        QuotedLine(
            line["fiscal_year"],
            date.fromisoformat(line["due_date"]),
            int(line.get("days_late", "0")),
            Decimal(line["impost"]),
            Decimal(line["surcharge"]),
            Decimal(line["interest"]),
        )
        for line in issued.lines_of(document)
    ]


def verify_url(reader: Reader, code: str) -> str:
    """The public page that verifies a document (its QR code points there)."""
    return f"{reader.base_url}/verificar/{issued.shown_code(code)}"


def after_day(document: IssuedDocument) -> dict[str, Any]:
    """What each day after a document's day adds, as ``templates/_after_day.html`` says it:
    the day (a quote's good-through day; a certificate's day of issue, the day its figures
    are of), the daily interest, and the one-time charges landing in the 30 days after."""
    lines = issued.lines_of(document)
    return {
        "after_day": document.good_through
        if document.kind == issued.PAYOFF and document.good_through
        else document.issued_on,
        "per_day": document.per_day,
        "one_time": issued.one_time_charges(lines),
        "one_time_said": issued.says_one_time_charges(lines),
    }


def context(reader: Reader, document: IssuedDocument, prop: Property) -> dict[str, Any]:
    """What an issued document's PDF and its page show."""
    url = verify_url(reader, document.code)
    return {
        "document": document,
        "prop": prop,
        "lines": quoted_lines(document),
        **after_day(document),
        "code": issued.shown_code(document.code),
        "verify_url": url,
        "qr": qr_svg_data_uri(url),
        "today": reader.today,
    }


def _actor(actor: audit.Actor | None, issued_by: str | None) -> audit.Actor:
    if actor is not None:
        return actor
    return audit.Actor((issued_by or COMMAND_LINE).strip()[:254] or COMMAND_LINE)


def payoff_pdf(
    session: Session,
    *,
    district: int,
    property: int,
    reader: Reader,
    through: date | None = None,
    issued_by: str | None = None,
    actor: audit.Actor | None = None,
) -> Document:
    """Issue a payoff quote of the property good through ``through`` (by default 30 days
    from today): recorded, its PDF archived, and the PDF returned."""
    shown = district_of(session, district)
    try:
        quote = payoffs.issue_quote(
            session=session,
            actor=_actor(actor, issued_by),
            district_id=district,
            property_id=property,
            today=reader.today,
            good_through=through,
            issued_by=issued_by or "",
        )
    except InputError as exc:  # the day is the document's parameter ``through``
        if exc.field == "good_through":
            raise InputError("through", exc.message) from None
        raise
    prop = session.get(Property, property)
    assert prop is not None  # issue_quote checked it
    pdf = reader.pdf("pdf/payoff.html", district=shown, **context(reader, quote, prop))
    issued.attach_pdf(session=session, document=quote, pdf=pdf)
    return Document(pdf, PDF, f"{quote.reference}.pdf")


def lien_certificate(
    session: Session,
    *,
    district: int,
    property: int,
    reader: Reader,
    issued_by: str | None = None,
    actor: audit.Actor | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Document:
    """Issue the certificate of the impost lien of a property: its liens in the order the
    law ranks them, what the impost lien secures today and what it does not, who issues it,
    the day it is valid through and what each day after adds; recorded, archived and
    verifiable by its code. ``progress(done, total)`` is told once its figures are read,
    before it is recorded and laid out (its job's page shows it)."""
    shown = district_of(session, district)
    prop = account_reads.district_property(
        session=session, district_id=district, property_id=property
    )
    if prop is None:
        raise InputError("property", NO_PROPERTY)
    on = reader.today
    view = liens.lien_priority(session=session, prop=prop, today=on)
    figures = payoffs.figures(session=session, prop=prop, through=on)
    if progress is not None:  # read and ranked; before anything is written (its own write)
        progress(1, 2)
    certificate = issued.issue(
        session=session,
        actor=_actor(actor, issued_by),
        kind=issued.LIEN_CERTIFICATE,
        district_id=district,
        property_id=property,
        issued_on=on,
        good_through=payoffs.default_good_through(on),
        figures=figures,
        issued_by=issued_by or "",
    )
    pdf = reader.pdf(
        "pdf/lien_certificate.html",
        district=shown,
        owners=liens.owner_names(session=session, property_id=property),
        view=view,
        reasons={
            (line.id, line.part): render(line.reason, reader.locale) for line in view.result.ranking
        },
        **context(reader, certificate, prop),
    )
    issued.attach_pdf(session=session, document=certificate, pdf=pdf)
    return Document(pdf, PDF, f"{certificate.reference}.pdf")


def release_pdf(
    session: Session,
    *,
    district: int,
    property: int,
    reader: Reader,
    issued_by: str | None = None,
    actor: audit.Actor | None = None,
) -> Document:
    """Issue the release of a property's impost lien (refused while it secures anything):
    recorded, archived and verifiable by its code."""
    shown = district_of(session, district)
    release = releases.issue_release(
        session=session,
        actor=_actor(actor, issued_by),
        district_id=district,
        property_id=property,
        today=reader.today,
        issued_by=issued_by or "",
    )
    prop = session.get(Property, property)
    assert prop is not None  # issue_release checked it
    pdf = reader.pdf(
        "pdf/release.html",
        district=shown,
        owners=liens.owner_names(session=session, property_id=property),
        years=releases.released_years(session=session, property_id=property),
        **context(reader, release, prop),
    )
    issued.attach_pdf(session=session, document=release, pdf=pdf)
    return Document(pdf, PDF, f"{release.reference}.pdf")


def issued_pdf(session: Session, *, district: int, reference: str) -> Document:
    """The PDF of a document issued about a property, exactly as archived."""
    document = issued.by_reference(session=session, district_id=district, reference=reference)
    if document is None or not document.sha256:
        raise InputError("reference", NO_ISSUED)
    return Document(
        archived_bytes(session=session, sha256=document.sha256), PDF, f"{document.reference}.pdf"
    )
