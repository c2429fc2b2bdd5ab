"""The proofs the law asks the petition's file to hold.

- **Publication** (21 LPRA § 6653(7)): recording the publication asks for the newspaper's
  page, attached as a document of kind *publication proof*; without it the petition says
  the proof is missing (:func:`tid.services.petitions.file_search.missing_proofs`).
- **The CRIM's copy** (§ 6653(4)): the app writes the transmittal letter (a PDF/A document
  of record, tid/documents/crim_letter.py) into the file, records when and how it was sent
  (which dates the ordinance's copy), and keeps the acknowledgement when it comes back.
- **The ordinance's content** (§ 6653(3)): what the clerk recorded, item by item.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlmodel import Session, col, select

from tid.models import CrimTransmittal, Ordinance, Petition, PetitionDocument
from tid.rules.errors import InputError
from tid.rules.messages import N_, Message
from tid.rules.vocab.document_kinds import (
    ACKNOWLEDGEMENT_TITLE,
    CRIM_ACKNOWLEDGEMENT,
    CRIM_TRANSMITTAL,
    ORDINANCE_SIGNED,
    PUBLICATION_PROOF,
    SENT_BY,
    TRANSMITTAL_TITLE,
)
from tid.services.audit_trail import audit
from tid.services.files import file_store
from tid.services.petitions.attachments import (
    Store,
    Upload,
    attach,
    attach_generated,
    check_upload,
    has_current,
    latest_version,
)
from tid.services.petitions.errors import Collector, PetitionError, PetitionFieldsError
from tid.services.petitions.ordinance import ordinance_of, publish, record_crim_copy
from tid.services.petitions.parsing import date_field, name_field


def _collect(errors: list[PetitionError], exc: InputError) -> None:
    if isinstance(exc, PetitionFieldsError):
        errors += exc.errors
    elif isinstance(exc, PetitionError):
        errors.append(exc)
    else:
        errors.append(PetitionError(exc.field, exc.message))


def _raise(errors: list[PetitionError]) -> None:
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise PetitionFieldsError(errors)


def record_publication(
    *,
    session: Session,
    actor: audit.Actor,
    petition: Petition,
    on: object,
    newspaper: object,
    outside_window_confirmed: bool,
    today: date,
    store: Store,
    proof: Upload | None,
) -> Petition:
    """§ 6653(7): the publication and, when the clerk has it, the newspaper's page as its
    proof, together: a refused page refuses the whole (nothing recorded)."""
    errors: list[PetitionError] = []
    if proof is not None:
        try:
            check_upload(proof, store, field="proof")
        except InputError as exc:
            _collect(errors, exc)
    try:
        publish(
            session=session,
            actor=actor,
            petition=petition,
            on=on,
            newspaper=newspaper,
            outside_window_confirmed=outside_window_confirmed,
            today=today,
        )
    except InputError as exc:
        _collect(errors, exc)
    _raise(errors)
    if proof is not None:
        attach(
            session=session,
            actor=actor,
            petition=petition,
            store=store,
            upload=proof,
            title=f"{petition.newspaper} {petition.published_on}",
            kind=PUBLICATION_PROOF,
            step="publication",
            dated_on=petition.published_on,
            public=True,
            today=today,
        )
    return petition


def missing_proofs(*, session: Session, petition: Petition) -> list[str]:
    """What the law asks the file to hold that it does not (messages): the newspaper's page
    of a recorded publication (§ 6653(7))."""
    missing: list[str] = []
    if petition.published_on is not None and not has_current(
        session=session, petition_id=petition.id or 0, kind=PUBLICATION_PROOF
    ):
        missing.append(
            Message(
                N_(
                    "The publication of %(day)s has no proof in the file: attach the "
                    "newspaper's page (21 LPRA § 6653(7))."
                ),
                day=petition.published_on,
            )
        )
    return missing


# --------------------------------------------------------------------------- the CRIM's copy


def signed_ordinance_pdf(*, session: Session, store: Store, petition_id: int) -> bytes | None:
    """The current PDF of the ordinance as signed in the file (None: there is none)."""
    document = session.exec(
        select(PetitionDocument)
        .where(
            PetitionDocument.petition_id == petition_id,
            PetitionDocument.kind == ORDINANCE_SIGNED,
            col(PetitionDocument.withdrawn_at).is_(None),
        )
        .order_by(col(PetitionDocument.id).desc())
    ).first()
    if document is None:
        return None
    version = latest_version(session=session, document_id=document.id or 0)
    if version is None or version.media_type != "application/pdf":
        return None
    return file_store.read(folder=store.folder, sha256=version.sha256)


def transmittal_of(*, session: Session, petition_id: int) -> CrimTransmittal | None:
    """The petition's latest transmittal to the CRIM."""
    return session.exec(
        select(CrimTransmittal)
        .where(CrimTransmittal.petition_id == petition_id)
        .order_by(col(CrimTransmittal.id).desc())
    ).first()


def _ordinance_or_refuse(session: Session, petition: Petition, field: str) -> Ordinance:
    ordinance = ordinance_of(session=session, petition=petition)
    if ordinance is None or ordinance.approved_on is None:
        raise PetitionError(
            field, N_("The CRIM's copy follows the mayor's approval of the ordinance.")
        )
    return ordinance


def record_crim_letter(
    *,
    session: Session,
    actor: audit.Actor,
    petition: Petition,
    store: Store,
    letter: bytes,
    filename: str,
    today: date,
) -> CrimTransmittal:
    """The transmittal letter the app wrote joins the file (kind CRIM transmittal)."""
    ordinance = _ordinance_or_refuse(session, petition, "letter")
    document = attach_generated(
        session=session,
        actor=actor,
        petition_id=petition.id or 0,
        store=store,
        pdf=letter,
        title=str(Message(TRANSMITTAL_TITLE, number=ordinance.number or "")),
        kind=CRIM_TRANSMITTAL,
        dated_on=today,
        step="crim",
        filename=filename,
        index=False,  # read (and its picture drawn) by the background job the page starts
    )
    transmittal = CrimTransmittal(
        petition_id=petition.id or 0,
        ordinance_id=ordinance.id or 0,
        letter_id=document.id or 0,
        created_by=actor.label,
    )
    session.add(transmittal)
    session.flush()
    audit.record(
        session=session,
        actor=actor,
        action="crim_transmittal.write",
        entity=("petition", petition.id),
        after={"document": document.title},
    )
    return transmittal


def _sent_by(value: object) -> str:
    text = value.strip() if isinstance(value, str) else ""
    if text not in SENT_BY:
        raise PetitionError("sent_by", N_("Choose how it was sent from the list."))
    return text


def record_crim_sent(
    *,
    session: Session,
    actor: audit.Actor,
    petition: Petition,
    on: object,
    sent_by: object,
    reference: object,
    today: date,
) -> CrimTransmittal:
    """When and how the letter went to the CRIM (it dates the ordinance's copy, § 6653(4))."""
    transmittal = transmittal_of(session=session, petition_id=petition.id or 0)
    check = Collector()
    how = check(lambda: _sent_by(sent_by), "")
    ref = check(lambda: name_field(reference, "reference", required=False), "")
    if transmittal is None:
        check.errors.append(
            PetitionError("on", N_("Write the transmittal letter first; then record its sending."))
        )
    errors = list(check.errors)
    try:
        record_crim_copy(session=session, actor=actor, petition=petition, on=on, today=today)
    except InputError as exc:
        _collect(errors, exc)
    _raise(errors)
    assert transmittal is not None
    ordinance = _ordinance_or_refuse(session, petition, "on")
    transmittal.sent_on = ordinance.crim_copy_sent_on
    transmittal.sent_by = how
    transmittal.reference = ref
    session.add(transmittal)
    audit.record(
        session=session,
        actor=actor,
        action="crim_transmittal.sent",
        entity=("petition", petition.id),
        after={"sent_on": transmittal.sent_on, "sent_by": how, "reference": ref},
    )
    return transmittal


def record_crim_acknowledgement(
    *,
    session: Session,
    actor: audit.Actor,
    petition: Petition,
    store: Store,
    upload: Upload | None,
    on: object,
    today: date,
) -> CrimTransmittal:
    """The CRIM's acknowledgement of receipt, kept in the file beside the letter."""
    transmittal = transmittal_of(session=session, petition_id=petition.id or 0)
    if transmittal is None or transmittal.sent_on is None:
        raise PetitionError("file", N_("Record the sending to the CRIM first."))
    day = date_field(on, "on", today=today)
    document = attach(
        session=session,
        actor=actor,
        petition=petition,
        store=store,
        upload=upload,
        title=str(Message(ACKNOWLEDGEMENT_TITLE)),
        kind=CRIM_ACKNOWLEDGEMENT,
        step="crim",
        dated_on=day,
        public=False,
        today=today,
    )
    transmittal.acknowledgement_id = document.id
    transmittal.acknowledged_on = day
    session.add(transmittal)
    audit.record(
        session=session,
        actor=actor,
        action="crim_transmittal.acknowledged",
        entity=("petition", petition.id),
        after={"document": document.title},
    )
    return transmittal


# --------------------------------------------------------------------------- § 6653(3)


@dataclass(frozen=True)
class ContentItem:
    label: str  # a msgid
    citation: str
    present: bool


def required_content(*, session: Session, petition: Petition) -> list[ContentItem]:
    """The content § 6653(3) and (4) ask of the ordinance, checked against what the clerk
    recorded, and whether the ordinance as signed is in the file."""
    ordinance = ordinance_of(session=session, petition=petition)
    if ordinance is None:
        return []
    signed = session.exec(
        select(PetitionDocument.id).where(
            PetitionDocument.petition_id == petition.id,
            PetitionDocument.kind == ORDINANCE_SIGNED,
            col(PetitionDocument.withdrawn_at).is_(None),
        )
    ).first()
    return [
        ContentItem(
            N_("The district's name"), "21 LPRA § 6653(3)(a)", bool(ordinance.district_name)
        ),
        ContentItem(
            N_("The amount expected to be collected"),
            "21 LPRA § 6653(3)(b)",
            ordinance.expected_amount > Decimal(0),
        ),
        ContentItem(N_("The district's term"), "21 LPRA § 6653(3)(c)", ordinance.term_years > 0),
        ContentItem(
            N_("The formula of the impost"), "21 LPRA § 6653(3)(d)", bool(ordinance.formula)
        ),
        ContentItem(
            N_("The association authorized to collect"),
            "21 LPRA § 6653(4)",
            bool(ordinance.association_name),
        ),
        ContentItem(
            N_("The ordinance as signed, in the file"), "21 LPRA § 6653(3)", signed is not None
        ),
    ]
