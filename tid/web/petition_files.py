"""A petition's file (21 LPRA § 6653(2)–(4), (7)): its documents with their versions, the
upload of a new one or of a new version, the downloads, and the clerk's search over
petitions, ordinances and the documents' text.

A file is never served inline with a type that can run script: downloads are attachments;
a PDF opens in the browser under a sandboxing Content-Security-Policy; every answer says
``X-Content-Type-Options: nosniff``."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge

from tid.app_reader import reader
from tid.config import archive_dir, document_max_bytes
from tid.db import get_session
from tid.documents import crim_letter
from tid.i18n import language, say
from tid.ids import parse_id
from tid.jobs import background_jobs as jobs
from tid.models import DocumentVersion, Petition, PetitionDocument
from tid.rules.errors import InputError
from tid.rules.messages import Message
from tid.rules.vocab import document_kinds
from tid.rules.vocab.document_kinds import DOCUMENT_KINDS, DOCUMENT_STEPS, SENT_BY
from tid.services import petitions as svc
from tid.services import places
from tid.services.files import file_store
from tid.services.petitions import attachments as files
from tid.services.petitions import file_search, proofs, recognition
from tid.services.petitions.errors import PetitionFieldsError
from tid.services.public import public_documents as public_files
from tid.web.access import me, public, require
from tid.web.forms import Form
from tid.web.petitions import READERS, WRITERS, _petition_or_404, _render_step
from tid.web.util import today

bp = Blueprint("petition_files", __name__, url_prefix="/petitions")

INDEX_JOB = "documents.index"
RECOGNIZE_JOB = "documents.recognize"


def store() -> files.Store:
    return files.store_for(current_app.config)


def _sent(field: str) -> dict[str, str]:
    """Why the request's form could not be read (too large, or cut off half way), as the
    file field's error; nothing when it was read whole."""
    try:
        request.files.get(field)
    except RequestEntityTooLarge:
        limit = document_max_bytes(current_app.config) // 2**20
        return {field: _("The file is larger than %(limit)s MB.", limit=limit)}
    except BadRequest:
        return {
            field: _(
                "The upload was interrupted before the whole file arrived; nothing was "
                "saved. Send it again."
            )
        }
    return {}


def _form(keys: tuple[str, ...], field: str = "file") -> tuple[dict[str, str], dict[str, str]]:
    """The form's values and, when the request could not be read whole, the file field's
    error (the values then empty)."""
    errors = _sent(field)
    if errors:
        return dict.fromkeys(keys, ""), errors
    return {k: request.form.get(k, "") for k in keys}, {}


def _upload(field: str = "file") -> tuple[files.Upload | None, dict[str, str]]:
    """The uploaded file, or the field's error (a request too large or cut off)."""
    errors = _sent(field)
    if errors:
        return None, errors
    sent = request.files.get(field)
    if sent is None or not sent.filename:
        return None, {}
    return files.Upload(sent.read(), sent.filename), {}


def _document_or_404(petition: Petition, document_id: int) -> PetitionDocument:
    document = files.document(session=get_session(), document_id=document_id)
    if document is None or document.petition_id != petition.id:
        abort(404)
    return document


def _kind_options() -> list[tuple[str, str]]:
    return [(t.code, _(t.label)) for t in DOCUMENT_KINDS]


def _step_options() -> list[tuple[str, str]]:
    return [(t.code, _(t.label)) for t in DOCUMENT_STEPS]


def index_pending(petition_id: int) -> None:
    """Read the petition's new versions' text (and draw their pictures) in the background.
    The versions are already saved: a queue that refuses the job even after its retries
    never turns that into an error page; the page says the reading will follow (the
    worker's sweep sends a job left queued again)."""
    from tid.jobs import tasks

    refused = False
    for version_id in files.pending_versions(session=get_session(), petition_id=petition_id):
        job, created = jobs.start(
            session=get_session(),
            token=jobs.new_token(),
            kind=INDEX_JOB,
            actor=me().actor,
            params={"version_id": version_id},
            district_id=None,
            target=f"document_version:{version_id}",
            locale=language(),
        )
        if not created or job.id is None:
            continue
        try:
            tasks.enqueue(current_app._get_current_object(), job.id)  # type: ignore[attr-defined]
        except Exception:
            current_app.logger.exception("job %s could not be queued; the sweep sends it", job.id)
            refused = True
    if refused:
        flash(
            _(
                "The task queue was busy: the file is saved, and its text will be read "
                "within about ten minutes."
            ),
            "warning",
        )


def _words(exc: InputError) -> dict[str, str]:
    """A refusal's errors by field: the file checks' messages, the petition forms' own."""
    errors = exc.errors if isinstance(exc, PetitionFieldsError) else [exc]
    words: dict[str, str] = {}
    for error in errors:
        words.setdefault(error.field, say(error.message))
    return words


# --------------------------------------------------------------------------- the file


_ATTACH_FIELDS = ("title", "kind", "step", "dated_on", "public")


@bp.route("/<int:petition_id>/file", methods=["GET", "POST"])
@require(*READERS)
def file(petition_id: int) -> Any:
    petition = _petition_or_404(petition_id)
    values, _cut = _form(_ATTACH_FIELDS)
    if request.method == "GET":
        values.update(kind=request.args.get("kind", ""), step=request.args.get("step", ""))
        values["dated_on"] = today().isoformat()
    errors: dict[str, str] = {}
    if request.method == "POST":
        if me().role not in WRITERS:
            abort(403)
        upload, errors = _upload()
        form = Form(words=_words)
        form.errors.update(errors)
        document = form.write(
            lambda: files.attach(
                session=get_session(),
                actor=me().actor,
                petition=petition,
                store=store(),
                upload=upload,
                title=values["title"],
                kind=values["kind"],
                step=values["step"],
                dated_on=values["dated_on"],
                public=values["public"] == "yes",
                today=today(),
            )
        )
        done = form.saved(
            _("Document attached; its text is being read for the search."),
            url_for("petition_files.file", petition_id=petition_id),
        )
        if done:
            if document is not None:
                index_pending(petition_id)
            return done
        errors = form.errors
        petition = _petition_or_404(petition_id)
    return _render_file(petition, values, errors)


def _render_file(petition: Petition, values: dict[str, str], errors: dict[str, str]) -> Any:
    session = get_session()
    return render_template(
        "petitions/file.html",
        petition=petition,
        entries=files.file_of(session=session, petition_id=petition.id or 0),
        missing=proofs.missing_proofs(session=session, petition=petition),
        kinds=DOCUMENT_KINDS,
        steps=DOCUMENT_STEPS,
        kind_options=_kind_options(),
        step_options=_step_options(),
        values=values,
        errors=errors,
        can_write=me().role in WRITERS,
        today=today(),
        max_mb=document_max_bytes(current_app.config) // 2**20,
    ), (422 if errors else 200)


@bp.route("/<int:petition_id>/file/<int:document_id>", methods=["GET", "POST"])
@require(*READERS)
def document(petition_id: int, document_id: int) -> Any:
    """One document: its versions, a new version, withdraw it, make it public or not."""
    petition = _petition_or_404(petition_id)
    doc = _document_or_404(petition, document_id)
    values, _cut = _form(("reason", "withdraw_reason", "replaces", "action", "public"))
    errors: dict[str, str] = {}
    if request.method == "POST":
        if me().role not in WRITERS:
            abort(403)
        done, errors = _document_action(petition, doc, values)
        if done is not None:
            return done
        doc = _document_or_404(_petition_or_404(petition_id), document_id)
    return _render_document(petition, doc, values, errors)


def _render_document(
    petition: Petition, doc: PetitionDocument, values: dict[str, str], errors: dict[str, str]
) -> Any:
    entry = next(
        (
            e
            for e in files.file_of(session=get_session(), petition_id=petition.id or 0)
            if e.document.id == doc.id
        ),
        None,
    )
    if entry is None:
        abort(404)
    scan = recognition.can_recognize(entry.current) and not entry.withdrawn
    return render_template(
        "petitions/document.html",
        petition=petition,
        entry=entry,
        kinds=DOCUMENT_KINDS,
        steps=DOCUMENT_STEPS,
        values=values,
        errors=errors,
        can_write=me().role in WRITERS,
        max_mb=document_max_bytes(current_app.config) // 2**20,
        scan=scan,
        ocr_unavailable=recognition.unavailable() if scan else None,
        ocr_target=_ocr_target(doc),
        ocr_kind=RECOGNIZE_JOB,
    ), (422 if errors else 200)


def _ocr_target(doc: PetitionDocument) -> str:
    return f"document:{doc.id}"


@bp.route("/<int:petition_id>/file/<int:document_id>/recognize", methods=["POST"])
@require(*WRITERS)
def recognize(petition_id: int, document_id: int) -> Any:
    """Make the document's scan searchable: its words read (OCR) in a background job into a
    new version; the page shows the job's progress."""
    from tid.web import jobs as web_jobs

    petition = _petition_or_404(petition_id)
    doc = _document_or_404(petition, document_id)
    current = files.latest_version(session=get_session(), document_id=document_id)
    why = recognition.unavailable()
    if current is None or doc.withdrawn_at is not None or not recognition.can_recognize(current):
        why = recognition.NOT_A_SCAN
    if why is not None or current is None:
        return _render_document(petition, doc, {}, {"recognize": _(why or "")})
    page = url_for("petition_files.document", petition_id=petition_id, document_id=document_id)
    job = jobs.latest_for(session=get_session(), target=_ocr_target(doc), kind=RECOGNIZE_JOB)
    if job is None or job.state in jobs.FINISHED:  # else one is under way: show it
        job = web_jobs.start(
            RECOGNIZE_JOB,
            params={
                "document_id": document_id,
                "number": current.number,
                "petition_id": petition_id,
            },
            district_id=None,
            target=_ocr_target(doc),
        )
    return redirect(f"{page}?job={job.id}#recognize")


def _document_action(
    petition: Petition, doc: PetitionDocument, values: dict[str, str]
) -> tuple[Any, dict[str, str]]:
    form = Form(words=_words)
    target = url_for("petition_files.document", petition_id=petition.id, document_id=doc.id)
    session = get_session()
    if values["action"] == "withdraw":
        form = Form(words=_words, rename={"reason": "withdraw_reason"})
        form.write(
            lambda: files.withdraw(
                session=session, actor=me().actor, document=doc, reason=values["withdraw_reason"]
            )
        )
        file_search.forget(session=session, document_id=doc.id or 0)
        return form.saved(_("Document withdrawn; it stays in the history."), target), form.errors
    if values["action"] == "public":
        form.write(
            lambda: files.set_public(
                session=session, actor=me().actor, document=doc, public=values["public"] == "yes"
            )
        )
        return form.saved(_("Saved."), target), form.errors
    upload, errors = _upload()
    form.errors.update(errors)
    version = form.write(
        lambda: files.replace(
            session=session,
            actor=me().actor,
            document=doc,
            replaces=values["replaces"],
            store=store(),
            upload=upload,
            reason=values["reason"],
        )
    )
    done = form.saved(_("New version saved; the earlier ones are kept."), target)
    if done is not None and version is not None:
        index_pending(petition.id or 0)
    return done, form.errors


# --------------------------------------------------------------------------- the proofs


@bp.route("/<int:petition_id>/publication", methods=["GET", "POST"])
@require(*WRITERS)
def publication(petition_id: int) -> Any:
    """§ 6653(7): the publication recorded with the newspaper's page as its proof."""
    petition = _petition_or_404(petition_id)
    if request.method == "GET":
        return redirect(url_for("petitions.step", petition_id=petition_id, action="publish"))
    values, _cut = _form(("on", "newspaper", "confirm"), "proof")
    proof, errors = _upload("proof")
    form = Form(words=_words)
    form.errors.update(errors)
    if not errors:
        form.write(
            lambda: proofs.record_publication(
                session=get_session(),
                actor=me().actor,
                petition=petition,
                on=values["on"],
                newspaper=values["newspaper"],
                outside_window_confirmed=values["confirm"] == "yes",
                today=today(),
                store=store(),
                proof=proof,
            )
        )
    done = form.saved(_("Saved."), url_for("petitions.show", petition_id=petition_id))
    if done:
        index_pending(petition_id)
        return done
    return _render_step(
        _petition_or_404(petition_id), "publish", errors=form.errors, values=values, status=422
    )


@bp.route("/<int:petition_id>/crim", methods=["GET", "POST"])
@require(*READERS)
def crim(petition_id: int) -> Any:
    """§ 6653(4): the transmittal letter to the CRIM, its sending and its acknowledgement;
    and the ordinance's required content (§ 6653(3))."""
    petition = _petition_or_404(petition_id)
    values, _cut = _form(("action", "on", "sent_by", "reference"))
    errors: dict[str, str] = {}
    if request.method == "POST":
        if me().role not in WRITERS:
            abort(403)
        form = Form(words=_words)
        _crim_action(form, petition, values)
        done = form.saved(_("Saved."), url_for("petition_files.crim", petition_id=petition_id))
        if done:
            index_pending(petition_id)
            return done
        errors = form.errors
        petition = _petition_or_404(petition_id)
    session = get_session()
    return render_template(
        "petitions/crim.html",
        petition=petition,
        ordinance=svc.ordinance_of(session=session, petition=petition),
        transmittal=proofs.transmittal_of(session=session, petition_id=petition_id),
        content=proofs.required_content(session=session, petition=petition),
        sent_by_options=[(t.code, _(t.label)) for t in SENT_BY],
        sent_by=SENT_BY,
        values=values,
        errors=errors,
        can_write=me().role in WRITERS,
        today=today(),
    ), (422 if errors else 200)


def _crim_action(form: Form, petition: Petition, values: dict[str, str]) -> None:
    session = get_session()
    if values["action"] == "letter":
        form.write(lambda: _write_letter(petition))
    elif values["action"] == "sent":
        form.write(
            lambda: proofs.record_crim_sent(
                session=session,
                actor=me().actor,
                petition=petition,
                on=values["on"],
                sent_by=values["sent_by"],
                reference=values["reference"],
                today=today(),
            )
        )
    else:
        upload, errors = _upload()
        form.errors.update(errors)
        if not errors:
            form.write(
                lambda: proofs.record_crim_acknowledgement(
                    session=session,
                    actor=me().actor,
                    petition=petition,
                    store=store(),
                    upload=upload,
                    on=values["on"],
                    today=today(),
                )
            )


def _write_letter(petition: Petition) -> Any:
    session = get_session()
    ordinance = svc.ordinance_of(session=session, petition=petition)
    municipality = places.municipality(session=session, municipality_id=petition.municipality_id)
    if ordinance is None or ordinance.approved_on is None or municipality is None:
        raise InputError(
            "letter",
            Message("The CRIM's copy follows the mayor's approval of the ordinance."),
        )
    signed = proofs.signed_ordinance_pdf(
        session=session, store=store(), petition_id=petition.id or 0
    )
    letter = crim_letter.crim_letter(
        reader=reader(language()), municipality=municipality, ordinance=ordinance, signed=signed
    )
    return proofs.record_crim_letter(
        session=session,
        actor=me().actor,
        petition=petition,
        store=store(),
        letter=letter.data,
        filename=letter.filename,
        today=today(),
    )


# --------------------------------------------------------------------------- downloads


def send_version(version: DocumentVersion, *, inline: bool) -> Response:
    """A version's file: a PDF inline under a sandbox, anything else as an attachment."""
    try:
        data = file_store.read(folder=archive_dir(current_app.config), sha256=version.sha256)
    except OSError:
        abort(404)
    show = inline and version.media_type == "application/pdf"
    name = version.filename
    ascii_name = name.encode("ascii", "replace").decode().replace('"', "'").replace("?", "_")
    disposition = "inline" if show else "attachment"
    response = Response(data, mimetype=version.media_type)
    response.headers["Content-Disposition"] = (
        f"{disposition}; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name)}"
    )
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Content-Security-Policy"] = "sandbox; default-src 'none'"
    response.headers["Cache-Control"] = "no-store"
    return response


def _version_or_404(version_id: int) -> tuple[DocumentVersion, PetitionDocument]:
    version = files.version(session=get_session(), version_id=version_id)
    if version is None:
        abort(404)
    doc = files.document(session=get_session(), document_id=version.document_id)
    if doc is None:
        abort(404)
    _petition_or_404(doc.petition_id)
    return version, doc


@bp.route("/file/version/<int:version_id>")
@require(*READERS)
def download(version_id: int) -> Any:
    version, _doc = _version_or_404(version_id)
    return send_version(version, inline=request.args.get("view") == "1")


@bp.app_template_filter("document_title")
def document_title(title: str, kind: str | None = None) -> str:
    """A document's title as the reader reads it (the app's own titles in their language)."""
    return document_kinds.document_title(title, kind)


@bp.app_template_global("picture_of")
def picture_of(version: DocumentVersion) -> str:
    """Where a version's picture is (``ready``, ``pending``, ``none``): the page shows it,
    says it is being drawn, or says there is none."""
    return file_search.picture_state(folder=archive_dir(current_app.config), version=version)


@bp.route("/file/version/<int:version_id>/thumbnail.png")
@require(*READERS)
def thumbnail(version_id: int) -> Any:
    """The picture a background job drew of the version's first page; "not found" while it
    is being drawn or when it has none (the page says which). Never drawn here."""
    version, _doc = _version_or_404(version_id)
    png = file_search.thumbnail(folder=archive_dir(current_app.config), version=version)
    if png is None:
        abort(404)
    response = Response(png, mimetype="image/png")
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Cache-Control"] = "private, max-age=86400"
    return response


@bp.route("/public/file/version/<int:version_id>", endpoint="public_download")
@public
def public_download(version_id: int) -> Any:
    """A public document's version, without a login; any other is "not found"."""
    version = public_files.public_version(session=get_session(), version_id=version_id)
    if version is None:
        abort(404)
    return send_version(version, inline=request.args.get("view") == "1")


# --------------------------------------------------------------------------- search


@bp.route("/search")
@require(*READERS)
def search() -> Any:
    from tid.services.auth import access as policy

    words = request.args.get("q", "")[:200]
    hits = file_search.search(
        session=get_session(),
        words=words,
        scope=policy.visible_municipalities(me()),
        limit=30,
    )
    get_session().commit()  # the petitions' and ordinances' entries brought up to date
    return render_template(
        "petitions/search.html",
        words=words,
        hits=hits,
        kinds=DOCUMENT_KINDS,
        petition_id=parse_id(request.args.get("petition", "")),
    )
