"""Background jobs on the web: start one from a form (once per form), watch its progress,
follow its result; and the health endpoints a load balancer or an orchestrator asks."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from babel.dates import format_timedelta
from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import format_number, ngettext
from flask_babel import gettext as _
from sqlalchemy import text
from sqlmodel import Session

from tid.clock import utcnow
from tid.db import get_session
from tid.i18n import language
from tid.ids import parse_id
from tid.jobs import background_jobs as job_service
from tid.models import ArchivedDocument, Job, JobState
from tid.rules.errors import N_
from tid.services.auth import access as policy
from tid.web import nav
from tid.web.access import STAFF, deny_unless, me, public, require, visible_district
from tid.web.util import latest_jobs_looked_up

bp = Blueprint("jobs", __name__)
nav.add(
    "jobs.index",
    N_("Jobs"),
    N_("Long work running in the background: notice runs, billing runs, roll imports."),
    STAFF,
)
QUEUE_DOWN = N_("The task queue cannot be reached; nothing was done. Try again in a while.")


def _scope() -> job_service.Scope:
    user = me()
    return job_service.Scope(
        policy.visible_district_ids(session=get_session(), person=user), user.id
    )


def may_see(job: Job) -> bool:
    scope = _scope()
    if scope.district_ids is None or job.user_id == scope.user_id:
        return True
    return job.district_id is not None and job.district_id in scope.district_ids


def _job(job_id: int) -> Job:
    job = get_session().get(Job, job_id)
    if job is None:
        abort(404)
    deny_unless(may_see(job))
    return job


def error_text(job: Job) -> str:
    """Why the job failed, in the reader's language."""
    if not job.error:
        return ""
    params = job_service.error_params(job)
    text_ = str(_(job.error))
    finding = params.get("finding")
    if finding:
        row = params.get("row")
        detail = str(_(str(finding)))
        text_ += " " + (f"{_('row')} {row}: {detail}" if row else detail)
        if int(params.get("count") or 0) > 1:
            text_ += " " + str(_("(%(n)d problems in all)", n=int(params["count"])))
    return text_


def count_text(job: Job) -> str:
    """How far the job is, in words ("250 of 500 notices"); empty when it counts nothing."""
    if not job.total:
        return ""
    done = format_number(min(job.done, job.total))
    if job.kind in ("notices.create", "notices.remail"):
        return str(
            ngettext(
                "%(done)s of %(num)s notice", "%(done)s of %(num)s notices", job.total, done=done
            )
        )
    if job.kind == "billing.run":
        return str(
            ngettext(
                "%(done)s of %(num)s property",
                "%(done)s of %(num)s properties",
                job.total,
                done=done,
            )
        )
    if job.kind in ("documents.recognize", "notices.manifest"):
        return str(_("step %(done)s of %(total)s", done=done, total=format_number(job.total)))
    return str(_("%(done)s of %(total)s", done=done, total=format_number(job.total)))


def time_left_text(seconds: float | None) -> str:
    """The time left in words ("about 12 s"), rounded up; empty when it is not known."""
    if seconds is None:
        return ""
    rounded = max(1, math.ceil(seconds))
    return str(
        _(
            "about %(time)s left",
            time=format_timedelta(
                timedelta(seconds=rounded),
                granularity="second",
                format="short",
                threshold=1.5,
                locale=language(),
            ),
        )
    )


def state_text(job: Job) -> str:
    if job.state == JobState.QUEUED.value:
        counted = count_text(job)
        waiting = str(_("Waiting for a worker…"))
        return f"{counted} · {waiting}" if counted else waiting
    if job.state == JobState.RUNNING.value:
        if job.total and job.done >= job.total:
            return str(_("Saving…"))
        if job.total:
            per_item = job_service.seconds_per_item(session=get_session(), kind=job.kind)
            left = time_left_text(job_service.seconds_left(job, now=utcnow(), per_item=per_item))
            return " · ".join(part for part in (count_text(job), left) if part)
        return str(_("Working…"))
    if job.state == JobState.DONE.value:
        return str(_("Done."))
    return str(_("Failed."))


def status(job: Job) -> dict[str, Any]:
    """What the progress script reads (no secrets: no parameters, no worker)."""
    return {
        "id": job.id,
        "state": job.state,
        "done": job.done,
        "total": job.total,
        "finished": job.state in job_service.FINISHED,
        "text": state_text(job),
        "result_url": job.result_url if job.state == JobState.DONE.value else "",
        "error": error_text(job),
    }


def start(
    kind: str,
    *,
    params: Mapping[str, Any],
    district_id: int | None,
    target: str,
    total: int = 0,
    token: str | None = None,
) -> Job:
    """Start the job of the submitted form (its ``job_token``), or find the one it started;
    ``total``: how many things it will do, when the form knows; ``token``: the job's own
    name instead of the form's (what it makes: every tab asking for it finds one job)."""
    from tid.jobs import tasks

    db = get_session()
    job, created = job_service.start(
        session=db,
        token=token or job_service.clean_token(request.form.get("job_token")),
        kind=kind,
        actor=me().actor,
        params=params,
        district_id=district_id,
        target=target,
        locale=language(),
        total=total,
    )
    if created:
        try:
            tasks.enqueue(current_app._get_current_object(), job.id or 0)  # type: ignore[attr-defined]
        except Exception:
            current_app.logger.exception("job %s could not be queued", job.id)
            job_service.fail(current_app.extensions["tid.engine"], job.id or 0, QUEUE_DOWN, {})
            db.refresh(job)
    return job


def named_upload(job: Job) -> dict[str, str]:
    """The file name and fiscal year a job's upload had (kept in its parameters)."""
    params = job_service.params_of(job)
    return {
        "file_name": str(params.get("file_name") or ""),
        "fiscal_year": str(params.get("fiscal_year") or ""),
    }


def shown(target: str, kind: str) -> Job | None:
    """The job to show on the page that starts ``kind`` on ``target``: the one named in
    ``?job=`` (if it is this page's), else the latest one still under way."""
    db = get_session()
    wanted = parse_id(request.args.get("job", ""))
    if wanted is not None:
        job = db.get(Job, wanted)
        if job is not None and job.target == target and job.kind == kind and may_see(job):
            return job
    looked_up = latest_jobs_looked_up()
    if (target, kind) in looked_up:
        job = looked_up[(target, kind)]
    else:
        job = job_service.latest_for(session=db, target=target, kind=kind)
    if job is not None and job.state not in job_service.FINISHED and may_see(job):
        return job
    return None


@bp.app_context_processor
def _helpers() -> dict[str, Any]:
    from tid.jobs.tasks import KIND_LABELS

    return {
        "new_job_token": job_service.new_token,
        "shown_job": shown,
        "job_status": status,
        "job_kind_label": lambda kind: _(KIND_LABELS.get(kind, kind)),
    }


@bp.route("/jobs/pdf/<int:district_id>/<which>", methods=["POST"])
@require(*STAFF)
def prepare_pdf(district_id: int, which: str) -> Any:
    """Prepare a document of the account (the yearly statement, the delinquency list, as PDF
    or CSV) in the background: for a district of thousands of properties it takes longer
    than a request should."""
    from tid.jobs import tasks
    from tid.web.account.downloads import LARGE_DOCUMENTS as DOCUMENTS

    if which not in DOCUMENTS:
        abort(404)
    visible_district(district_id)
    query: dict[str, Any] = {
        k: request.form.get(k, "")[:20] for k in ("fy", "booked_by") if request.form.get(k)
    }
    job = start(
        tasks.ACCOUNT_PDF,
        params={"which": which, "district_id": district_id, "query": query},
        district_id=district_id,
        target=f"pdf:{which}:{district_id}",
    )
    return redirect(url_for(DOCUMENTS[which][1], district_id=district_id, job=job.id, **query))


@bp.route("/jobs/<int:job_id>/document")
@require(*STAFF)
def document(job_id: int) -> Any:
    """The document a finished job made (archived by its SHA-256)."""
    from tid.services import notices

    job = _job(job_id)
    if job.state != JobState.DONE.value or not job.result_sha256:
        abort(404)
    which = str(job_service.params_of(job).get("which") or "document")
    db = get_session()
    data = notices.archived_bytes(session=db, sha256=job.result_sha256)
    stored = db.get(ArchivedDocument, job.result_sha256)
    media = stored.media_type if stored is not None else "application/pdf"
    name = which if which.endswith(".csv") else f"{which}.pdf"
    stem, _dot, ext = name.rpartition(".")
    return Response(
        data,
        mimetype=media,
        headers={"Content-Disposition": f'attachment; filename="{stem}-{job.id}.{ext}"'},
    )


@bp.route("/jobs")
@require(*STAFF)
def index() -> Any:
    found = job_service.visible(session=get_session(), scope=_scope())
    return render_template(
        "jobs/index.html",
        jobs=found,
        running=any(j.state not in job_service.FINISHED for j in found),
    )


@bp.route("/jobs/<int:job_id>")
@require(*STAFF)
def show(job_id: int) -> Any:
    return render_template("jobs/show.html", job=_job(job_id))


@bp.route("/jobs/<int:job_id>.json")
@require(*STAFF)
def status_json(job_id: int) -> Any:
    response = jsonify(status(_job(job_id)))
    response.headers["Cache-Control"] = "no-store"
    return response


# --------------------------------------------------------------------------- health


@bp.route("/healthz")
@public
def healthz() -> Any:
    """The process is up (a liveness probe: it touches nothing)."""
    response = jsonify({"status": "ok"})
    response.headers["Cache-Control"] = "no-store"
    return response


@functools.cache
def _heads() -> frozenset[str]:
    from alembic.script import ScriptDirectory

    from tid.migrate import alembic_config

    return frozenset(ScriptDirectory.from_config(alembic_config("sqlite://")).get_heads())


def _at_head(session: Session) -> bool:
    heads = _heads()
    rows = session.connection().execute(text("SELECT version_num FROM alembic_version"))
    return {str(r[0]) for r in rows} == heads


@bp.route("/readyz")
@public
def readyz() -> Any:
    """Ready for traffic: the database answers, its schema is at the migrations' head, the
    queue answers, and a worker said it was alive in the last minute. No details beyond
    true/false per check (no addresses, no versions)."""
    from tid.jobs import tasks

    checks = {"database": False, "migrations": False, "queue": False, "worker": False}
    engine = current_app.extensions["tid.engine"]
    try:
        with Session(engine) as session:
            session.connection().execute(text("SELECT 1"))
            checks["database"] = True
            try:
                checks["migrations"] = _at_head(session)
            except Exception:
                session.rollback()
            seen = job_service.last_heartbeat(session=session)
            checks["worker"] = seen is not None and utcnow() - seen <= timedelta(minutes=1)
    except Exception:
        current_app.logger.warning("readyz: database check failed", exc_info=True)
    try:
        tasks.queue_of(current_app).huey.storage.queue_size()
        checks["queue"] = True
    except Exception:
        current_app.logger.warning("readyz: queue check failed", exc_info=True)
    ready = all(checks.values())
    response = jsonify({"status": "ready" if ready else "not ready", "checks": checks})
    response.status_code = 200 if ready else 503
    response.headers["Cache-Control"] = "no-store"
    return response
