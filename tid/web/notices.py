"""Certified-mail notices for the association (21 LPRA § 6653(5)): the 30-day clock, notice
runs, article numbers, mailing with the PS 3877 manifest, delivery reports and re-mailing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from tid.app_reader import reader
from tid.db import get_session
from tid.documents import notices as notice_documents
from tid.documents.base import Document
from tid.i18n import language, say
from tid.ids import parse_page
from tid.jobs import background_jobs as job_service
from tid.jobs import tasks
from tid.models import Notice, NoticeBatch
from tid.rules.errors import N_, Finding, FindingsError, InputError
from tid.rules.periods import parse_date
from tid.services import notices as notice_service
from tid.services import places
from tid.services.auth import access as policy
from tid.services.billing import billing_reads
from tid.web import jobs, nav, paging
from tid.web.access import STAFF, me, require, visible_district
from tid.web.forms import Form
from tid.web.util import send, today

bp = Blueprint("notices", __name__, url_prefix="/notices")
nav.add(
    "notices.dashboard",
    N_("Notices"),
    N_("Certified-mail notices to the owners: deadlines, runs, mailing and returns."),
    STAFF,
)
WRITERS = policy.DISTRICT_WRITERS


def _district_ids() -> set[int] | None:
    """The districts the user may see (None: all)."""
    return policy.visible_district_ids(session=get_session(), person=me())


def _batch(batch_id: int) -> NoticeBatch:
    batch = notice_service.batch(session=get_session(), batch_id=batch_id)
    if batch is None:
        abort(404)
    visible_district(batch.district_id)
    return batch


def _notice(notice_id: int) -> Notice:
    notice = notice_service.notice(session=get_session(), notice_id=notice_id)
    if notice is None:
        abort(404)
    visible_district(notice.district_id)
    return notice


def _base_url() -> str:
    from flask import current_app

    return str(current_app.config.get("BASE_URL") or request.host_url)


def _csv_upload() -> bytes:
    """The form's CSV file, read."""
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        raise InputError("file", N_("Choose a CSV file."))
    data: bytes = upload.read()
    return data


def _error(exc: InputError) -> str:
    if isinstance(exc, FindingsError):
        rows = "; ".join(
            f"{_('row')} {f.row}: {say(f.message)}" if f.row else say(f.message)
            for f in exc.findings[:10]
        )
        return str(_("Nothing was saved.")) + " " + rows
    return str(_("Nothing was saved.")) + " " + str(say(exc.message))


# Kinds and delivery statuses, shown translated (``_(notice.kind)``) in the templates.
_STATUS_MSGIDS = (
    N_("initial"),
    N_("yearly"),
    N_("remailing"),
    N_("delivered"),
    N_("returned_unclaimed"),
    N_("refused"),
    N_("undeliverable"),
)


@bp.route("")
@require(*STAFF)
def dashboard() -> Any:
    return _render_dashboard([])


def _render_dashboard(file_errors: list[dict[str, Any]]) -> Any:
    """The notices' page; ``file_errors``: a refused delivery file's errors, row by row."""
    db = get_session()
    ids = _district_ids()
    rows = notice_service.dashboard(session=db, district_ids=ids, today=today())
    batches = notice_service.batches(session=db, district_ids=ids)[:50]
    # Runs are numbered per district: name the district when the list has several.
    district_ids = {b.district_id for b in batches}
    names = (
        places.district_names(session=db, district_ids=district_ids)
        if len(district_ids) > 1
        else {}
    )
    return render_template(
        "notices/dashboard.html",
        rows=rows,
        batches=batches,
        district_names=names,
        can_write=me().role in WRITERS,
        today=today(),
        file_errors=file_errors,
    ), (422 if file_errors else 200)


@bp.route("/runs/<int:run_id>/new", methods=["GET", "POST"])
@require(*WRITERS)
def batch_new(run_id: int) -> Any:
    db = get_session()
    run = billing_reads.run(session=db, run_id=run_id)
    if run is None:
        abort(404)
    district = visible_district(run.district_id)
    names = ("issued_on", "sender_name", "sender_address", "how_to_pay", "how_to_pay_en")
    values = {
        "issued_on": today().isoformat(),
        **notice_service.sender_defaults(
            session=db, district_id=district.id or 0, association_name=district.association_name
        ),
    }
    errors: dict[str, str] = {}
    target = f"billing_run:{run_id}"
    if request.method == "POST":
        values = {name: request.form.get(name, "") for name in names}
        form = Form(
            words=lambda exc: {exc.field if exc.field in names else "form": say(exc.message)}
        )
        issued_on = form.read(lambda: parse_date(values["issued_on"], "issued_on"))
        if issued_on is not None:
            form.write(
                lambda: notice_service.check_batch(
                    session=db,
                    billing_run_id=run_id,
                    sender_name=values["sender_name"],
                    sender_address=values["sender_address"],
                    how_to_pay=values["how_to_pay"],
                    how_to_pay_en=values["how_to_pay_en"],
                    load=False,
                )
            )
        errors = form.errors
        if issued_on is not None and not errors:
            # Rendering thousands of notices takes minutes: a worker does it (tid/jobs/tasks.py).
            job = jobs.start(
                tasks.NOTICES_CREATE,
                params={
                    "billing_run_id": run_id,
                    "issued_on": issued_on.isoformat(),
                    "sender_name": values["sender_name"],
                    "sender_address": values["sender_address"],
                    "how_to_pay": values["how_to_pay"],
                    "how_to_pay_en": values["how_to_pay_en"],
                    "portal_base_url": _base_url(),
                },
                district_id=district.id,
                target=target,
                total=run.property_count,
            )
            return redirect(url_for("notices.batch_new", run_id=run_id, job=job.id))
    return render_template(
        "notices/batch_new.html",
        run=run,
        district=district,
        values=values,
        errors=errors,
        job=jobs.shown(target, tasks.NOTICES_CREATE),
    ), (422 if errors else 200)


# The delivery filters of a run's page, as the user reads them.
FILTER_LABELS = {
    notice_service.NOT_MAILED: N_("Not mailed"),
    notice_service.AWAITING: N_("Mailed, no report yet"),
    "delivered": N_("Delivered"),
    notice_service.RETURNED_ANY: N_("Returned (any reason)"),
    "returned_unclaimed": N_("Returned unclaimed"),
    "refused": N_("Refused"),
    "undeliverable": N_("Undeliverable"),
}


def _render_batch(
    batch: NoticeBatch,
    *,
    fee_errors: dict[str, str] | None = None,
    fee_values: dict[str, str] | None = None,
    file_errors: list[dict[str, Any]] | None = None,
) -> Any:
    db = get_session()
    batch_id = batch.id or 0
    status = request.args.get("status", "")
    page_number = parse_page(request.args.get("page", "1"))
    view = notice_service.batch_view(session=db, batch_id=batch_id, status=status, page=page_number)
    fees = notice_service.batch_fees(batch)
    if fee_values is None:
        receipt = fees.return_receipt_fee
        if receipt is None:
            receipt = notice_service.default_receipt_fee(batch.issued_on)
        fee_values = {
            "postage": f"{fees.postage:.2f}",
            "certified_fee": f"{fees.certified_fee:.2f}",
            "return_receipt": "1" if fees.return_receipt_fee is not None else "",
            "return_receipt_fee": f"{receipt:.2f}",
        }
    return render_template(
        "notices/batch.html",
        batch=batch,
        label=notice_service.batch_label(batch),
        notices=view.listing.notices,
        listing=view.listing,
        pager=paging.pager(
            view.listing.info,
            "notices.batch_view",
            batch_id=batch_id,
            status=view.listing.status or None,
        ),
        filter_labels=FILTER_LABELS,
        status=view.delivery,
        remailable=view.remailable,
        can_write=me().role in WRITERS,
        today=today(),
        with_articles=view.with_articles,
        fees=fees,
        fees_total=fees.total(batch.notice_count),
        fees_citation=notice_service.fees_citation(batch.issued_on),
        fee_errors=fee_errors or {},
        fee_values=fee_values,
        job=jobs.shown(f"manifest:{batch_id}", tasks.NOTICES_MANIFEST)
        or jobs.shown(f"batch:{batch_id}", tasks.NOTICES_MAIL)
        or jobs.shown(f"batch:{batch_id}", tasks.NOTICES_REMAIL),
        file_errors=file_errors or [],
    ), (422 if fee_errors or file_errors else 200)


@bp.route("/batches/<int:batch_id>")
@require(*STAFF)
def batch_view(batch_id: int) -> Any:
    return _render_batch(_batch(batch_id))


@bp.route("/batches/<int:batch_id>/fees", methods=["POST"])
@require(*WRITERS)
def batch_fees(batch_id: int) -> Any:
    """Postage and fees per piece, set before the manifest (PS Form 3877) is printed."""
    db = get_session()
    batch = _batch(batch_id)
    if batch.mailed_on is not None:
        flash(_error(InputError("postage", N_("This notice run was already mailed."))), "error")
        return redirect(url_for("notices.batch_view", batch_id=batch_id))
    names = ("postage", "certified_fee", "return_receipt", "return_receipt_fee")
    values = {name: request.form.get(name, "").strip()[:40] for name in names}
    form = Form()
    fees = form.read(
        lambda: notice_service.parse_fees(
            postage=values["postage"],
            certified_fee=values["certified_fee"],
            return_receipt=bool(values["return_receipt"]),
            return_receipt_fee=values["return_receipt_fee"],
        )
    )
    if fees is not None:
        form.write(
            lambda: notice_service.set_batch_fees(
                session=db, actor=me().actor, batch_id=batch.id or 0, fees=fees
            )
        )
    done = form.saved(
        _("Postage and fees saved; the manifest prints them."),
        url_for("notices.batch_view", batch_id=batch_id),
    )
    return done or _render_batch(batch, fee_errors=form.errors, fee_values=values)


def _pdf(make: Callable[[], Document]) -> Response:
    try:
        return send(make())
    except InputError:
        abort(404)


@bp.route("/batches/<int:batch_id>/print.pdf")
@require(*STAFF)
def batch_print(batch_id: int) -> Any:
    batch = _batch(batch_id)
    return _pdf(
        lambda: notice_documents.print_file(
            get_session(), batch=batch.id or 0, reader=reader(language())
        )
    )


@bp.route("/batches/<int:batch_id>/manifest.pdf")
@require(*STAFF)
def batch_manifest(batch_id: int) -> Any:
    """The run's PS Form 3877: the archived one once mailed, else the draft laid out for the
    run as it stands (a job started from the run's page); none yet: back to the page, which
    lays it out."""
    batch = _batch(batch_id)
    try:
        found = notice_documents.prepared_manifest(
            get_session(), batch=batch.id or 0, reader=reader(language())
        )
    except InputError:
        abort(404)
    if found is not None:
        return send(found)
    flash(_(MANIFEST_NOT_READY), "warning")
    return redirect(url_for("notices.batch_view", batch_id=batch_id), code=303)


MANIFEST_NOT_READY = N_(
    "The manifest is laid out for the run as it stands now: lay it out with the button "
    "below; its link then downloads it."
)


@bp.route("/batches/<int:batch_id>/manifest", methods=["POST"])
@require(*STAFF)
def prepare_manifest(batch_id: int) -> Any:
    """The run's PS Form 3877 asked for: the one made for the run as it stands, or a job
    that lays it out (one job, however many tabs ask at once), its progress on the page."""
    batch = _batch(batch_id)
    found, key = notice_documents.find_manifest(
        get_session(), batch=batch.id or 0, reader=reader(language())
    )
    if found is not None:
        return redirect(url_for("notices.batch_manifest", batch_id=batch_id), code=303)
    params = {"batch_id": batch.id, "district_id": batch.district_id}
    target = f"manifest:{batch_id}"
    job = jobs.start(
        tasks.NOTICES_MANIFEST,
        params=params,
        district_id=batch.district_id,
        target=target,
        token=f"ps3877:{key}",
    )
    if job.state in job_service.FINISHED:  # made for this state once, but no longer kept
        job = jobs.start(
            tasks.NOTICES_MANIFEST,
            params=params,
            district_id=batch.district_id,
            target=target,
            token=f"ps3877:{key}:{job_service.new_token()[:12]}",
        )
    return redirect(url_for("notices.batch_view", batch_id=batch_id, job=job.id), code=303)


@bp.route("/batches/<int:batch_id>/articles", methods=["GET", "POST"])
@require(*WRITERS)
def batch_articles(batch_id: int) -> Any:
    """Article numbers from a file: recorded whole, or its errors listed row by row beside
    the form (nothing recorded)."""
    db = get_session()
    batch = _batch(batch_id)
    if request.method == "GET":  # a reload of a refused file: the run's page
        return redirect(url_for("notices.batch_view", batch_id=batch_id))
    form = Form()
    result = form.write(
        lambda: notice_service.import_article_numbers(
            session=db, actor=me().actor, batch_id=batch.id or 0, data=_csv_upload()
        )
    )
    if form.refused is not None:
        return _render_batch(batch, file_errors=file_rows(form.refused))
    return form.flashed(
        _("Article numbers recorded: %(n)d.", n=result.changed) if result else "",
        url_for("notices.batch_view", batch_id=batch_id),
        explain=_error,
    )


def file_rows(exc: InputError) -> list[dict[str, Any]]:
    """A refused file's errors, one a row: the row, the number it gives, what is wrong."""
    findings = exc.findings if isinstance(exc, FindingsError) else [Finding(exc.field, exc.message)]
    return [
        {
            "row": f.row,
            "number": f.extra.get("number", "") if f.extra else "",
            "message": say(f.message),
        }
        for f in findings
    ]


@bp.route("/<int:notice_id>/article", methods=["POST"])
@require(*WRITERS)
def notice_article(notice_id: int) -> Any:
    db = get_session()
    notice = _notice(notice_id)
    form = Form()
    form.write(
        lambda: notice_service.set_article_number(
            session=db,
            actor=me().actor,
            notice_id=notice.id or 0,
            article_number=request.form.get("article_number", ""),
        )
    )
    page = parse_page(request.form.get("page", "1"))
    status = request.form.get("status", "")
    back = url_for(
        "notices.batch_view",
        batch_id=notice.batch_id,
        page=page if page > 1 else None,
        status=status if status in FILTER_LABELS else None,
    )
    return form.flashed(
        _("Article number recorded."),
        back,
        explain=lambda exc: _(
            "Notice %(number)s: %(error)s", number=notice.number, error=_error(exc)
        ),
        field=f"a-{notice.id}",
    )


_MAIL_FIELDS = ("mailed_on",)


@bp.route("/batches/<int:batch_id>/mail", methods=["GET", "POST"])
@require(*WRITERS)
def batch_mail(batch_id: int) -> Any:
    """Record the mailing: every field checked at once, each error next to its field on a
    page of its own (which a reload shows again, never 405)."""
    batch = _batch(batch_id)
    values = {name: request.form.get(name, "") for name in _MAIL_FIELDS}
    errors: dict[str, str] = {}
    if request.method == "GET":
        values["mailed_on"] = today().isoformat()
    else:
        form = Form()
        mailed_on = form.read(lambda: parse_date(values["mailed_on"], "mailed_on"))
        if mailed_on is not None:
            # The date against today and the notices' date, and the article numbers: all
            # known now, so refused here, beside the field, rather than by the job.
            day = mailed_on
            form.read(
                lambda: notice_service.check_mailing(
                    session=get_session(), batch_id=batch.id or 0, mailed_on=day, today=today()
                )
            )
        errors = form.errors
        if not errors and mailed_on is not None and batch.mailed_on is None:
            # The manifest of thousands of articles is rendered by a worker (tid/jobs/tasks.py).
            job = jobs.start(
                tasks.NOTICES_MAIL,
                params={
                    "batch_id": batch.id,
                    "mailed_on": mailed_on.isoformat(),
                    # The run's postage and fees, set on its page (batch_fees).
                    "postage": "",
                    "certified_fee": "",
                    "today": today().isoformat(),
                },
                district_id=batch.district_id,
                target=f"batch:{batch.id}",
            )
            return redirect(url_for("notices.batch_view", batch_id=batch_id, job=job.id))
    return render_template(
        "notices/mail.html",
        batch=batch,
        values=values,
        errors=errors,
        today=today(),
        fees=notice_service.batch_fees(batch),
        label=notice_service.batch_label(batch),
    ), (422 if errors else 200)


@bp.route("/deliveries", methods=["GET", "POST"])
@require(*WRITERS)
def deliveries() -> Any:
    """Delivery reports from a file: recorded whole, or its errors listed row by row beside
    the form on the notices' page (nothing recorded)."""
    if request.method == "GET":  # a reload of a refused file: the notices' page
        return redirect(url_for("notices.dashboard"))
    db = get_session()
    form = Form()
    result = form.write(
        lambda: notice_service.import_deliveries(
            session=db,
            actor=me().actor,
            data=_csv_upload(),
            today=today(),
            district_ids=_district_ids(),
        )
    )
    if form.refused is not None:
        return _render_dashboard(file_rows(form.refused))
    return form.flashed(
        _(
            "Delivery reports recorded: %(n)d; returned notices to re-mail: %(r)d.",
            n=result.recorded,
            r=len(result.returned),
        )
        if result
        else "",
        url_for("notices.dashboard"),
        explain=_error,
    )


@bp.route("/<int:notice_id>/remail", methods=["POST"])
@require(*WRITERS)
def notice_remail(notice_id: int) -> Any:
    notice = _notice(notice_id)
    job = jobs.start(
        tasks.NOTICES_REMAIL,
        params={
            "notice_ids": [notice.id],
            "issued_on": today().isoformat(),
            "portal_base_url": _base_url(),
            "new_address": request.form.get("new_address", ""),
        },
        district_id=notice.district_id,
        target=f"batch:{notice.batch_id}",
    )
    return redirect(url_for("notices.batch_view", batch_id=notice.batch_id, job=job.id))


@bp.route("/<int:notice_id>.pdf")
@require(*STAFF)
def notice_pdf(notice_id: int) -> Any:
    notice = _notice(notice_id)
    return _pdf(
        lambda: notice_documents.notice_pdf(
            get_session(), notice=notice.number, reader=reader(language())
        )
    )
