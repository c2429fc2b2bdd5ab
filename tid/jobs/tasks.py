"""The work that runs in the background (``tid worker``, Huey's consumer): thin callers of
the services, like ``tid/jobs/scheduled_jobs.py`` for the scheduler.

The queue carries one task, ``run_job(job_id)``; what to do is in the job's row
(tid/jobs/background_jobs.py). Each handler below runs one service in one transaction;
the job is marked done in that same transaction, so a job either did all its work or none of
it. An ``InputError`` (or a ``FindingsError``) is the user's to fix and is recorded as its
msgid, shown later in the reader's language; anything else is logged and recorded as "failed
unexpectedly". Either way the work is rolled back.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from flask import Flask, url_for
from huey import Huey
from sqlalchemy.engine import Engine
from sqlmodel import Session

from tid.clock import utcnow
from tid.config import portal_code_secret
from tid.jobs import background_jobs as job_service
from tid.proc import die_with_parent, reap_orphans
from tid.rules.errors import N_, FindingsError, InputError
from tid.services.audit_trail import audit

log = logging.getLogger(__name__)

UNEXPECTED = N_(
    "The job failed unexpectedly; nothing was saved. Try again, or tell the administrator."
)
NOTICES_CREATE = "notices.create"
NOTICES_MAIL = "notices.mail"
NOTICES_REMAIL = "notices.remail"
NOTICES_MANIFEST = "notices.manifest"
BILLING_RUN = "billing.run"
ROLL_COMMIT = "roll.commit"
ROLL_CHECK = "roll.check"
ABOARD_LOAD = "aboard.load"
ABOARD_CHECK = "aboard.check"
ACCOUNT_PDF = "account.pdf"
STUDIO_SAVE = "studio.save"
LIEN_CERTIFICATE = "account.lien_certificate"
DAILY_DIGEST = "scheduler.daily_digest"
YEARLY_NOTICES = "scheduler.yearly_notices"
OWNER_MAIL = "scheduler.owner_mail"
DOCUMENTS_INDEX = "documents.index"
DOCUMENTS_RECOGNIZE = "documents.recognize"
INSTALLATION_CHECKS = "installation.checks"
DISTRICT_EXPORT = "district.export"
ACCOUNT_STATEMENTS = "scheduler.account_statements"
PASSWORD_RESET_MAIL = "auth.reset_mail"

# What each kind of job is called on the jobs page.
KIND_LABELS = {
    NOTICES_CREATE: N_("Prepare notices"),
    NOTICES_MAIL: N_("Record the mailing"),
    NOTICES_REMAIL: N_("Send a notice again"),
    NOTICES_MANIFEST: N_("Lay out the PS Form 3877 manifest"),
    BILLING_RUN: N_("Billing run"),
    ROLL_COMMIT: N_("Import the roll"),
    ROLL_CHECK: N_("Check the roll file"),
    ABOARD_LOAD: N_("Book the opening position"),
    ABOARD_CHECK: N_("Check the opening position's files"),
    ACCOUNT_PDF: N_("Prepare a document of the account"),
    STUDIO_SAVE: N_("Try formulas on a roll and save the study"),
    LIEN_CERTIFICATE: N_("Issue a lien certificate"),
    DAILY_DIGEST: N_("Daily deadline digest"),
    YEARLY_NOTICES: N_("Yearly notices"),
    OWNER_MAIL: N_("Notices' copies and reminders to owners' email"),
    DOCUMENTS_INDEX: N_("Read a document for the search"),
    DOCUMENTS_RECOGNIZE: N_("Make a scan searchable"),
    INSTALLATION_CHECKS: N_("Check the mail server and the backups"),
    DISTRICT_EXPORT: N_("Export the district's whole record"),
    ACCOUNT_STATEMENTS: N_("Lay out the yearly statements readers open first"),
    PASSWORD_RESET_MAIL: N_("Email a link to set a new password"),
}


@dataclass
class Context:
    """What a handler gets: the app, the job's parameters, a session for its one
    transaction, and a way to report progress."""

    app: Flask
    job_id: int
    params: dict[str, Any]
    session: Session
    actor: audit.Actor
    report: Callable[[int, int], None]
    locale: str = "es"

    def url(self, endpoint: str, **values: Any) -> str:
        with self.app.test_request_context("/"):
            return url_for(endpoint, **values)


@dataclass(frozen=True)
class Outcome:
    url: str
    label: str
    sha256: str = ""
    then: Callable[[], object] | None = None  # run once the job's work is committed


Handler = Callable[[Context], Outcome]
HANDLERS: dict[str, Handler] = {}


def handler(kind: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        HANDLERS[kind] = fn
        return fn

    return register


def _day(value: Any) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def _secret(app: Flask) -> str:
    return portal_code_secret(app.config)


@handler(NOTICES_CREATE)
def _notices_create(ctx: Context) -> Outcome:
    from tid.services import notices

    p = ctx.params
    batch = notices.create_batch(
        session=ctx.session,
        actor=ctx.actor,
        billing_run_id=int(p["billing_run_id"]),
        issued_on=_day(p["issued_on"]),
        sender_name=str(p["sender_name"]),
        sender_address=str(p["sender_address"]),
        how_to_pay=str(p["how_to_pay"]),
        how_to_pay_en=None if p.get("how_to_pay_en") is None else str(p["how_to_pay_en"]),
        portal_base_url=str(p["portal_base_url"]),
        secret=_secret(ctx.app),
        workers=p.get("workers"),
        progress=ctx.report,
    )
    ctx.session.flush()
    return Outcome(
        ctx.url("notices.batch_view", batch_id=batch.id),
        N_("The notices were prepared. Print them, then enter the article numbers."),
    )


@handler(NOTICES_MAIL)
def _notices_mail(ctx: Context) -> Outcome:
    from tid.services import notices

    p = ctx.params
    batch = notices.mail_batch(
        session=ctx.session,
        actor=ctx.actor,
        batch_id=int(p["batch_id"]),
        mailed_on=_day(p["mailed_on"]),
        postage=str(p.get("postage") or "") or None,
        certified_fee=str(p.get("certified_fee") or "") or None,
        today=_day(p["today"]),
    )
    app, mailed = ctx.app, _day(p["today"])
    return Outcome(
        ctx.url("notices.batch_manifest", batch_id=batch.id),
        N_("The notices are recorded as mailed; the manifest is archived."),
        batch.manifest_sha256,
        # the owners who confirmed an email address get the notice's digital copy now
        then=lambda: schedule(app, OWNER_MAIL, mailed, token=f"{OWNER_MAIL}:batch:{batch.id}"),
    )


@handler(NOTICES_REMAIL)
def _notices_remail(ctx: Context) -> Outcome:
    from tid.services import notices

    p = ctx.params
    batch = notices.remail_notices(
        session=ctx.session,
        actor=ctx.actor,
        notice_ids=[int(i) for i in p["notice_ids"]],
        issued_on=_day(p["issued_on"]),
        portal_base_url=str(p["portal_base_url"]),
        secret=_secret(ctx.app),
        new_address=str(p.get("new_address", "")),
        workers=1,
    )
    ctx.session.flush()
    return Outcome(
        ctx.url("notices.batch_view", batch_id=batch.id),
        N_("A new notice was prepared for the same bill."),
    )


@handler(NOTICES_MANIFEST)
def _notices_manifest(ctx: Context) -> Outcome:
    """A run's draft PS Form 3877 laid out as the run stands now, in the language of who
    asked, and kept on the installation's shelf, where the manifest's link finds it."""
    from tid.app_reader import reader
    from tid.documents import notices as notice_documents

    batch_id = int(ctx.params["batch_id"])
    ctx.report(0, notice_documents.MANIFEST_STEPS)
    notice_documents.manifest_pdf(
        ctx.session,
        batch=batch_id,
        reader=reader(ctx.locale),
        district=int(ctx.params["district_id"]),
        progress=ctx.report,
    )
    return Outcome(
        ctx.url("notices.batch_manifest", batch_id=batch_id),
        N_("The PS Form 3877 manifest is ready."),
    )


@handler(BILLING_RUN)
def _billing_run(ctx: Context) -> Outcome:
    from tid.services import billing

    p = ctx.params
    result = billing.run_billing(
        session=ctx.session,
        actor=ctx.actor,
        district_id=int(p["district_id"]),
        fiscal_year=str(p["fiscal_year"]),
        run_on=_day(p["run_on"]),
        due_date=_day(p["due_date"]) if p.get("due_date") else None,
        parameters=str(p.get("parameters", "")),
        reason=str(p.get("reason", "")),
        progress=ctx.report,
    )
    ctx.session.flush()
    label = (
        N_("Nothing changed: the active billing of this fiscal year already has these bills.")
        if result.unchanged
        else N_("Billing run done.")
    )
    return Outcome(
        ctx.url("roll.billing_run", district_id=int(p["district_id"]), run_id=result.run.id),
        label,
    )


def preview_key(app: Flask) -> bytes:
    """The key that signs a roll file's kept preview (see roll.store_preview)."""
    return hashlib.sha256(b"roll-preview:" + str(app.config["SECRET_KEY"]).encode()).digest()


def _roll_upload(ctx: Context) -> tuple[Path, str, dict[str, Any]]:
    """The uploads folder, the token and what the roll's check and import take of the upload
    (its bytes, district, year, name and the configured limits)."""
    from tid.services import roll

    folder = Path(ctx.app.instance_path) / "uploads"
    token = str(ctx.params["token"])
    data, meta = roll.load_upload(folder, token, user_id=ctx.actor.user_id)
    return (
        folder,
        token,
        {
            "district_id": int(ctx.params["district_id"]),
            "fiscal_year": str(meta["fiscal_year"]),
            "data": data,
            "file_name": str(meta.get("file_name", "")),
            "max_bytes": int(ctx.app.config.get("ROLL_MAX_BYTES") or roll.DEFAULT_MAX_BYTES),
            "max_rows": int(ctx.app.config.get("ROLL_MAX_ROWS") or roll.DEFAULT_MAX_ROWS),
        },
    )


@handler(ROLL_CHECK)
def _roll_check(ctx: Context) -> Outcome:
    """Check a large roll file against the district's roll (writes nothing but the preview
    kept beside the upload, which its page then shows)."""
    from tid.services import roll
    from tid.services.roll_check import changes as roll_changes

    p = ctx.params
    folder, token, upload = _roll_upload(ctx)
    ctx.report(0, 3)
    preview = roll.preview_roll(session=ctx.session, **upload)
    ctx.report(1, 3)  # then the year's changes against last year's roll
    preview = roll_changes.with_changes(session=ctx.session, preview=preview)
    ctx.report(2, 3)
    roll.store_preview(
        folder, token, user_id=ctx.actor.user_id, preview=preview, key=preview_key(ctx.app)
    )
    ctx.report(3, 3)
    return Outcome(
        ctx.url("roll.preview", district_id=int(p["district_id"]), token=token),
        N_("The file is checked: see what it would change."),
    )


@handler(ROLL_COMMIT)
def _roll_commit(ctx: Context) -> Outcome:
    from tid.services import roll
    from tid.services.roll_check import changes as roll_changes

    p = ctx.params
    folder, _token, upload = _roll_upload(ctx)
    # The roll, and the year's changes against last year's (its check, tid/services/roll_check).
    result = roll_changes.import_roll(session=ctx.session, actor=ctx.actor, **upload)
    ctx.session.flush()
    # Imported: the upload is not kept (docs/security.md, "Keeping data"). Should the job's
    # commit fail after this, the page says so and the file is uploaded again.
    roll.delete_upload(folder, str(p["token"]), user_id=ctx.actor.user_id)
    label = (
        N_("This file was already imported for this fiscal year: nothing changed.")
        if result.unchanged
        else N_("Roll imported.")
    )
    return Outcome(
        ctx.url(
            "roll.properties",
            district_id=int(p["district_id"]),
            fiscal_year=result.roll_import.fiscal_year,
        ),
        label,
    )


def _aboard_files(ctx: Context) -> tuple[Path, dict[str, Any], dict[str, int]]:
    """The uploads folder, the files kept under the job's token, and the files' limits."""
    from tid.services import aboard, roll

    folder = Path(ctx.app.instance_path) / "uploads"
    files = aboard.load_files(
        folder,
        str(ctx.params["token"]),
        district_id=int(ctx.params["district_id"]),
        user_id=ctx.actor.user_id,
    )
    limits = {
        "max_bytes": int(ctx.app.config.get("ROLL_MAX_BYTES") or roll.DEFAULT_MAX_BYTES),
        "max_rows": int(ctx.app.config.get("ROLL_MAX_ROWS") or roll.DEFAULT_MAX_ROWS),
    }
    return folder, files, limits


@handler(ABOARD_CHECK)
def _aboard_check(ctx: Context) -> Outcome:
    """Check large files of an opening position (writes nothing but the check kept beside
    the upload, which its page then shows)."""
    from tid.clock import today
    from tid.services import aboard

    folder, files, limits = _aboard_files(ctx)
    district_id, token = int(ctx.params["district_id"]), str(ctx.params["token"])
    preview = aboard.check_position(
        session=ctx.session,
        district_id=district_id,
        files=files,
        today=today(ctx.app.config),
        progress=ctx.report,
        **limits,
    )
    aboard.store_preview(
        folder, token, user_id=ctx.actor.user_id, preview=preview, key=preview_key(ctx.app)
    )
    return Outcome(
        ctx.url("account.aboard_preview", district_id=district_id, token=token),
        N_("The files are checked: see the bad rows and the totals."),
    )


@handler(ABOARD_LOAD)
def _aboard_load(ctx: Context) -> Outcome:
    """Book a district's opening position from its uploaded files, once its totals were
    confirmed on its page (checked again here, under the district's lock)."""
    from tid.clock import today
    from tid.services import aboard

    p = ctx.params
    district_id = int(p["district_id"])
    folder, files, limits = _aboard_files(ctx)
    booked = aboard.book_position(
        session=ctx.session,
        actor=ctx.actor,
        district_id=district_id,
        files=files,
        confirmed={str(k): Decimal(str(v)) for k, v in dict(p["confirmed"]).items()},
        today=today(ctx.app.config),
        progress=ctx.report,
        **limits,
    )
    ctx.session.flush()
    page = ctx.url("account.aboard_page", district_id=district_id)
    # Booked: the upload is not kept (the archive keeps the files, with their SHA-256).
    aboard.delete_files(folder, str(p["token"]), user_id=ctx.actor.user_id)
    return Outcome(
        page,
        N_("The opening position is booked.")
        if booked.booked
        else N_("These files were booked already: nothing changed."),
    )


@handler(ACCOUNT_PDF)
def _account_pdf(ctx: Context) -> Outcome:
    """A document of a large district's account (the yearly statement or the delinquency
    list, PDF or CSV), made as its page would (its query: fiscal year, booked by) in the
    language of who asked."""
    from tid import documents
    from tid.app_reader import reader
    from tid.rules.periods import parse_fiscal_year
    from tid.services import notices

    p = ctx.params
    which = str(p["which"])
    name = which if "." in which else f"{which}.pdf"  # "statement" is the statement's PDF
    kind = documents.KINDS.get(name)
    if kind is None or kind.needs != ("district",):
        raise InputError("which", N_("There is no such document."))
    query = {str(k): str(v) for k, v in dict(p.get("query") or {}).items()}
    params: dict[str, Any] = {"district": int(p["district_id"])}
    if kind.optional:
        params["year"] = parse_fiscal_year(query["fy"]) if query.get("fy") else None
        try:
            params["booked_by"] = _day(query["booked_by"]) if query.get("booked_by") else None
        except ValueError:
            raise InputError("booked_by", N_("Write a date like 2026-03-02.")) from None
    document = documents.make(ctx.session, name, reader=reader(ctx.locale), **params)
    sha = notices.archive(
        session=ctx.session, content=document.data, media_type=document.media_type
    )
    done = N_("The PDF is ready.") if document.is_pdf else N_("The file is ready.")
    return Outcome(ctx.url("jobs.document", job_id=ctx.job_id), done, sha)


@handler(STUDIO_SAVE)
def _studio_save(ctx: Context) -> Outcome:
    """A formula study too large for a request: every variant tried on its roll, the study
    report made in the language of who asked, the study saved with the petition."""
    from tid import clock
    from tid.app_reader import reader
    from tid.documents import studio_reports
    from tid.models import Petition
    from tid.services import studio
    from tid.services.petitions import attachments

    p = ctx.params
    petition = ctx.session.get(Petition, int(p["petition_id"]))
    if petition is None:
        raise InputError("petition", N_("There is no such petition."))
    folder = Path(ctx.app.instance_path) / "uploads" / "studies"
    asked = studio.read_study({str(k): str(v) for k, v in dict(p["values"]).items()})
    outcome = studio.try_study(
        session=ctx.session,
        study=asked,
        uploads=folder,
        user_id=ctx.actor.user_id,
        progress=ctx.report,
    )
    title = str(p["title"])
    report = studio_reports.report_pdf(
        outcome, reader=reader(ctx.locale), petition=petition, title=title
    )
    saved = studio.save_study(
        session=ctx.session,
        actor=ctx.actor,
        petition=petition,
        outcome=outcome,
        report=report,
        title=title,
        uploads=folder,
        user_id=ctx.actor.user_id,
        filed=(attachments.store_for(ctx.app.config), clock.today(ctx.app.config)),
    )
    return Outcome(
        ctx.url("studio.show", study_id=saved.id),
        N_("Study saved with the petition; its report is archived."),
    )


@handler(LIEN_CERTIFICATE)
def _lien_certificate(ctx: Context) -> Outcome:
    """A property's lien certificate issued (recorded, archived, verifiable) in the
    language of who asked; its progress said once its figures are read, before it is laid
    out."""
    from tid.app_reader import reader
    from tid.documents import closing

    p = ctx.params
    district_id = int(p["district_id"])
    made = closing.lien_certificate(
        ctx.session,
        district=district_id,
        property=int(p["property_id"]),
        reader=reader(ctx.locale),
        issued_by=str(p["issued_by"]),
        actor=ctx.actor,
        progress=ctx.report,
    )
    reference = made.filename.removesuffix(".pdf")
    return Outcome(
        ctx.url("account.issued_document", district_id=district_id, reference=reference),
        N_("Lien certificate issued."),
    )


@handler(DOCUMENTS_INDEX)
def _documents_index(ctx: Context) -> Outcome:
    """A new version's text read for the search, and its first page's picture drawn."""
    from tid.config import archive_dir
    from tid.readers import limits_of
    from tid.services.petitions import file_search

    folder, limits = archive_dir(ctx.app.config), limits_of(ctx.app.config)
    version = file_search.index_version(
        session=ctx.session, folder=folder, version_id=int(ctx.params["version_id"]), limits=limits
    )
    if version is None:
        return Outcome("", "")
    # its first page's picture, drawn once here (never in a web request)
    file_search.draw_picture(folder=folder, version=version, limits=limits)
    return Outcome(ctx.url("petition_files.download", version_id=version.id), N_("Download"))


@handler(DOCUMENTS_RECOGNIZE)
def _documents_recognize(ctx: Context) -> Outcome:
    """A scan's words read (OCR) into a new version of its document, found by the search."""
    from tid.config import ocr_timeout_seconds
    from tid.services.petitions import attachments, recognition

    document_id = int(ctx.params["document_id"])
    recognition.recognize(
        session=ctx.session,
        actor=ctx.actor,
        document_id=document_id,
        number=int(ctx.params["number"]),
        store=attachments.store_for(ctx.app.config),
        timeout=ocr_timeout_seconds(ctx.app.config),
        locale=ctx.locale,
        progress=ctx.report,
    )
    petition_id = int(ctx.params["petition_id"])
    return Outcome(
        ctx.url("petition_files.document", petition_id=petition_id, document_id=document_id),
        N_("The scan's words were recognized into a new version; the search finds them."),
    )


@handler(DISTRICT_EXPORT)
def _district_export(ctx: Context) -> Outcome:
    """A district's whole record as a ZIP in the uploads' folder (deleted with them after
    UPLOAD_RETENTION_HOURS), its progress a table at a time."""
    from tid.config import archive_dir
    from tid.services.district_record import export

    district_id = int(ctx.params["district_id"])
    target = export.job_file(Path(ctx.app.instance_path), ctx.job_id)
    try:
        done = export.export_to_file(
            session=ctx.session,
            district_id=district_id,
            folder=archive_dir(ctx.app.config),
            target=target,
            progress=ctx.report,
        )
    except export.ExportError:
        raise InputError("district", export.ARCHIVE_CHANGED) from None
    export.record_export(session=ctx.session, actor=ctx.actor, district_id=district_id, done=done)
    url = ctx.url("leaving.record_download", district_id=district_id, job_id=ctx.job_id)
    return Outcome(url, N_("The file is ready."))


@handler(DAILY_DIGEST)
def _daily_digest(ctx: Context) -> Outcome:
    from tid.jobs import scheduled_jobs

    scheduled_jobs.run_daily_digest(ctx.app, _day(ctx.params["day"]))
    return Outcome("", N_("Digest sent."))


@handler(OWNER_MAIL)
def _owner_mail(ctx: Context) -> Outcome:
    from tid.jobs import scheduled_jobs

    scheduled_jobs.run_owner_mail(ctx.app, _day(ctx.params["day"]))
    return Outcome("", N_("Messages to the owners sent."))


@handler(YEARLY_NOTICES)
def _yearly_notices(ctx: Context) -> Outcome:
    from tid.jobs import scheduled_jobs

    scheduled_jobs.run_yearly_notices(ctx.app, day=_day(ctx.params["day"]))
    return Outcome(ctx.url("notices.dashboard"), N_("Yearly notices prepared."))


@handler(ACCOUNT_STATEMENTS)
def _account_statements(ctx: Context) -> Outcome:
    """The day's round of the yearly statements, laid out before anyone asks for them."""
    from tid.web.account import prepared

    prepared.prepare_readers_statements(ctx.app)
    return Outcome("", N_("The yearly statements readers open first are laid out."))


def queue_reset_mail(app: Flask, user: Any, *, forced: bool) -> None:
    """Queue the mail of a link to set a new password for ``user`` (forced: an
    administrator asked). The worker makes the link's token: neither the queue nor the
    job's row holds it, and the request takes as long whether or not an account exists."""
    engine: Engine = app.extensions["tid.engine"]
    with Session(engine, expire_on_commit=False) as session:
        job, _created = job_service.start(
            session=session,
            token=f"{PASSWORD_RESET_MAIL}:{secrets.token_hex(16)}",
            kind=PASSWORD_RESET_MAIL,
            actor=audit.Actor(user.email, user.id),
            params={"user_id": user.id, "forced": forced},
            district_id=None,
            locale=user.locale,
        )
    enqueue(app, job.id or 0)


def _reset_message(ctx: Context, user: Any, token: str, *, forced: bool) -> tuple[str, str]:
    """The reset link's subject and body, in the account's language."""
    from flask_babel import force_locale
    from flask_babel import gettext as _

    minutes = int(ctx.app.config.get("PASSWORD_RESET_MINUTES") or 60)
    # The token rides in the fragment: browsers never send it, so no access log keeps it
    # (the page's script puts it in the form; without script the person pastes it).
    link = ctx.app.config["BASE_URL"].rstrip("/") + ctx.url("auth.reset") + "#" + token
    with (
        ctx.app.test_request_context("/"),
        force_locale(user.locale if user.locale in ("es", "en") else "es"),
    ):
        subject = _("Set a new password for tid")
        intro = (
            _("An administrator asked you to set a new password.")
            if forced
            else _("Someone (we hope you) asked to set a new password for this account.")
        )
        body = "\n\n".join(
            [
                intro,
                _("Open this link within %(minutes)s minutes; it works once:")
                % {"minutes": minutes},
                link,
                _("If the page asks for the code from the email, it is: %(code)s")
                % {"code": token},
                _("If you did not ask for it, ignore this message: your password stays."),
            ]
        )
    return str(subject), body


@handler(PASSWORD_RESET_MAIL)
def _password_reset_mail(ctx: Context) -> Outcome:
    """A link to set a new password: its token made and kept (its hash only) here, mailed
    once committed; an account no longer active gets nothing."""
    from datetime import timedelta

    from tid import mail
    from tid.services.auth import passwords, users

    user = users.account(session=ctx.session, user_id=int(ctx.params["user_id"]))
    minutes = int(ctx.app.config.get("PASSWORD_RESET_MINUTES") or 60)
    found = passwords.request_reset(
        session=ctx.session,
        email=user.email if user is not None else "",
        lifetime=timedelta(minutes=minutes),
    )
    if found is None:
        return Outcome("", KIND_LABELS[PASSWORD_RESET_MAIL])
    person, token = found
    subject, body = _reset_message(ctx, person, token, forced=bool(ctx.params.get("forced")))
    settings = mail.MailSettings.from_config(ctx.app.config)
    address = person.email
    return Outcome(
        "",
        KIND_LABELS[PASSWORD_RESET_MAIL],
        then=lambda: mail.send(settings, [address], subject, body),
    )


@handler(INSTALLATION_CHECKS)
def _installation_checks(ctx: Context) -> Outcome:
    """The installation's slow checks (a test message, a backup's round trip), their
    verdicts kept for its page; a failing check is a verdict, not a failed job."""
    from tid.services import installation

    found = installation.slow(
        session=ctx.session,
        engine=ctx.app.extensions["tid.engine"],
        config=ctx.app.config,
        mail_to=str(ctx.params.get("mail_to") or ""),
        lang=ctx.locale,
    )
    label = (
        N_("The mail server and the backups pass their checks.")
        if all(check.ok for check in found)
        else N_("A check failed: the installation's page says what to fix.")
    )
    return Outcome(ctx.url("admin.installation"), label)


def schedule(app: Flask, kind: str, day: date, *, token: str = "") -> bool:
    """``tid scheduler``'s jobs: queue ``kind`` for ``day`` once (the day is in the job's
    token, so a second scheduler queues nothing; another ``token`` names another occasion).
    True if it was queued now."""
    engine: Engine = app.extensions["tid.engine"]
    with Session(engine, expire_on_commit=False) as session:
        job, created = job_service.start(
            session=session,
            token=token or f"{kind}:{day.isoformat()}",
            kind=kind,
            actor=audit.SYSTEM,
            params={"day": day.isoformat()},
            district_id=None,
        )
    if created:
        enqueue(app, job.id or 0)
    return created


# --------------------------------------------------------------------------- running a job


REPORT_EVERY = 0.25  # seconds: a count older than this is written with the next report
REPORT_WRITES = 200  # writes a job's count takes at most, by the items between them


class Reporter:
    """A job's progress, told item by item, written when it moved by a 200th of the total
    or ``every`` seconds (by ``clock``) after the last write, and always the first count,
    the last and a count whose total changed: a run of 20,000 notices writes a few hundred
    times, not 20,000, and a count whose items are slow is written item by item."""

    def __init__(
        self,
        write: Callable[[int, int], None],
        *,
        every: float = REPORT_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.write, self.every, self.clock = write, every, clock
        self.written: tuple[int, int] | None = None
        self.at = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        step = max(1, total // REPORT_WRITES)
        last = self.written
        due = (
            last is None
            or last[1] != total
            or done <= 0
            or done >= total
            or done - last[0] >= step
            or now - self.at >= self.every
        )
        if due:
            self.write(done, total)
            self.written, self.at = (done, total), now


def _progress_engine(app: Flask) -> Engine:
    """A second engine for progress writes: on SQLite it gives up quickly instead of
    waiting on the job's own write lock (progress is best effort; the work is not)."""
    engine: Engine | None = app.extensions.get("tid.progress_engine")
    if engine is None:
        from sqlalchemy import event

        from tid.db import make_engine

        engine = make_engine(app.config["DATABASE_URL"], pool_size=1, max_overflow=1)
        if engine.dialect.name == "sqlite":

            @event.listens_for(engine, "connect")
            def _short_wait(dbapi_connection: Any, _record: Any) -> None:
                dbapi_connection.execute("PRAGMA busy_timeout=200")

        app.extensions["tid.progress_engine"] = engine
    return engine


def execute(app: Flask, job_id: int, worker: str) -> str:
    """Run the job ``job_id`` if it is queued; returns its final state (or ``skipped``)."""
    from tid.models import Job, JobState

    engine: Engine = app.extensions["tid.engine"]
    if not job_service.claim(engine, job_id, worker):
        return "skipped"
    progress_engine = _progress_engine(app)

    def write(done: int, total: int) -> None:
        try:
            job_service.progress(progress_engine, job_id, done, total)
        except Exception:  # a busy database: the next report will do
            log.debug("progress of job %s not recorded", job_id, exc_info=True)

    report = Reporter(write)

    with app.app_context(), Session(engine, expire_on_commit=False) as session:
        job = session.get(Job, job_id)
        assert job is not None
        run = HANDLERS.get(job.kind)
        ctx = Context(
            app=app,
            job_id=job_id,
            params=job_service.params_of(job),
            session=session,
            actor=audit.Actor(job.actor, job.user_id),
            report=report,
            locale=job.locale,
        )
        try:
            if run is None:
                raise InputError("kind", N_("This kind of job is not known."))
            outcome = run(ctx)
            job_service.finish(
                session=session,
                job_id=job_id,
                result_url=outcome.url,
                result_label=outcome.label,
                result_sha256=outcome.sha256,
            )
            session.commit()
            _then(job_id, outcome)
        except FindingsError as exc:
            session.rollback()
            first = exc.findings[0] if exc.findings else None
            params: dict[str, Any] = {"field": exc.field, "count": len(exc.findings)}
            if first is not None:
                params.update(row=first.row, finding=first.message)
            job_service.fail(engine, job_id, exc.message, params)
            return JobState.FAILED.value
        except InputError as exc:
            session.rollback()
            job_service.fail(engine, job_id, exc.message, {"field": exc.field})
            return JobState.FAILED.value
        except Exception:
            session.rollback()
            log.exception("job %s (%s) failed", job_id, job.kind)
            job_service.fail(engine, job_id, UNEXPECTED, {})
            return JobState.FAILED.value
    return JobState.DONE.value


def _then(job_id: int, outcome: Outcome) -> None:
    """What a job does once its work is committed: best effort, its failure only logged."""
    if outcome.then is None:
        return
    try:
        outcome.then()
    except Exception:
        log.exception("job %s: what follows its work failed", job_id)


# --------------------------------------------------------------------------- the queue


@dataclass
class Queue:
    """An app's queue: its Huey and the one task on it."""

    huey: Huey
    task: Any
    worker: str

    def enqueue(self, job_id: int) -> None:
        self.task(job_id)


def init_app(app: Flask) -> None:
    """Make the app's queue (tid/jobs/queue.py) and register ``run_job`` on it."""
    from tid.jobs import queue

    engine: Engine = app.extensions["tid.engine"]
    huey = queue.make_huey(app.config, Path(app.instance_path), engine)
    worker = job_service.worker_name()

    def run_job(job_id: int) -> str:
        return execute(app, job_id, holder.worker)

    task = huey.task(name="run_job")(run_job)
    holder = Queue(huey=huey, task=task, worker=worker)

    @huey.on_startup()  # type: ignore[untyped-decorator]
    def _worker_started() -> None:
        # Huey's process workers (``tid worker --kind process``) die with the consumer.
        import multiprocessing
        import os

        if multiprocessing.parent_process() is not None:
            die_with_parent(os.getppid())

    app.extensions["tid.jobs.queue"] = holder


def queue_of(app: Flask) -> Queue:
    result: Queue = app.extensions["tid.jobs.queue"]
    return result


def queue_depth(app: Flask) -> int | None:
    """The tasks waiting in the app's queue, as its storage counts them (None: it did not
    answer)."""
    try:
        return int(queue_of(app).huey.storage.queue_size())
    except Exception:
        log.warning("the queue did not answer", exc_info=True)
        return None


ENQUEUE_TRIES = 3
ENQUEUE_PAUSE = 0.5  # seconds before the second try, doubled before each next


def enqueue(app: Flask, job_id: int) -> None:
    """Put the job on the queue, trying again (``ENQUEUE_TRIES`` times, ``ENQUEUE_PAUSE``
    seconds apart, doubling) when the queue's storage is busy or out of reach; the last failure is
    raised (the job stays queued in its table: the worker's sweep sends it again)."""
    for attempt in range(ENQUEUE_TRIES):
        try:
            queue_of(app).enqueue(job_id)
            return
        except Exception:
            if attempt == ENQUEUE_TRIES - 1:
                raise
            log.warning("job %s: the queue refused it; trying again", job_id, exc_info=True)
            time.sleep(ENQUEUE_PAUSE * 2**attempt)


def run_pending(app: Flask) -> int:
    """Run every task waiting in the queue in this process (tests, ``tid worker --once``)."""
    q = queue_of(app)
    count = 0
    # Asked first, so an empty queue answers at once: Redis's dequeue waits up to a second
    # for a task that has not come yet.
    while q.huey.storage.queue_size():
        task = q.huey.dequeue()
        if task is None:  # another worker took it in between
            break
        q.huey.execute(task)
        count += 1
    return count


def sweep(app: Flask) -> int:
    """Beat the heartbeat, end what dead workers' programs left running here, and queue
    again the jobs of dead workers; returns how many."""
    q = queue_of(app)
    engine: Engine = app.extensions["tid.engine"]
    job_service.beat(engine, q.worker)
    # What a killed worker's programs started and left running on this machine (ocrmypdf's
    # Ghostscript and tesseract, re-parented to init) ends before its jobs run again.
    orphans = reap_orphans()
    if orphans:
        log.warning("ended %d program(s) left running by a dead worker", orphans)
    again = 0
    with Session(engine, expire_on_commit=False) as session:
        # A job still queued long after it was started while the queue is empty lost its
        # message (a worker died between taking it and claiming it): send it again. A
        # duplicate message is harmless: only one claim of a queued job succeeds.
        lost = job_service.waiting_since(session=session, before=utcnow() - job_service.LOST_AFTER)
        if lost and not q.huey.storage.queue_size():
            for job_id in lost:
                log.warning("job %s: queued but not in the queue; sent again", job_id)
                q.enqueue(job_id)
                again += 1
        for job in job_service.orphaned(session=session, me=q.worker):
            if job_service.requeue(session=session, job=job):
                log.warning("job %s: its worker %s is gone; queued again", job.id, job.worker)
                q.enqueue(job.id or 0)
                again += 1
    return again


def run_worker(app: Flask, *, workers: int, kind: str = "thread") -> None:
    """``tid worker``: Huey's consumer with ``workers`` threads (or processes), a heartbeat
    every few seconds, and the jobs of dead workers queued again."""
    q = queue_of(app)
    stop = threading.Event()

    def heartbeat() -> None:
        while not stop.is_set():
            try:
                sweep(app)
            except Exception:
                log.exception("worker heartbeat failed")
            stop.wait(job_service.HEARTBEAT_SECONDS)

    sweep(app)
    beating = threading.Thread(target=heartbeat, name="tid-heartbeat", daemon=True)
    beating.start()
    consumer = q.huey.create_consumer(
        workers=workers,
        worker_type=kind,
        periodic=False,  # ``tid scheduler`` is the one scheduler
        initial_delay=0.1,
        backoff=1.15,
        max_delay=1.0,
        check_worker_health=True,
    )
    app.logger.info("worker %s: %d %s(s) on the %s queue", q.worker, workers, kind, q.huey.name)
    try:
        consumer.run()
    finally:
        stop.set()
