"""Moving in on the web: the association (or an administrator) uploads the files of the
district's opening position (docs/moving-in.md; example files in tid/static/aboard/), sees
every bad row and the totals to confirm against its trial balance, types each total, and a
worker books the position all at once (tid/jobs/tasks.py), the page following it."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from flask import abort, current_app, redirect, render_template, request, url_for
from flask_babel import gettext as _

from tid.config import upload_retention
from tid.db import get_session
from tid.i18n import say
from tid.jobs import tasks
from tid.models import JobState
from tid.rules.errors import N_, Finding, InputError
from tid.rules.money import parse_money
from tid.services import aboard, roll
from tid.web import jobs
from tid.web.access import me, require, visible_district
from tid.web.account.blueprint import WRITERS, bp
from tid.web.account.fields import writer
from tid.web.forms import Form
from tid.web.util import today


def finding_message(finding: Finding) -> str:
    """A bad row's finding in the reader's language."""
    msgid = finding.extra.get("msgid") if finding.extra else None
    if not msgid:
        return say(finding.message)
    params = finding.extra.get("params") or {}
    return str(_(msgid, **params) if params else _(msgid))


def _uploads() -> Path:
    return Path(current_app.instance_path) / "uploads"


def _limits() -> dict[str, Any]:
    config = current_app.config
    return {
        "max_bytes": int(config.get("ROLL_MAX_BYTES") or roll.DEFAULT_MAX_BYTES),
        "max_rows": int(config.get("ROLL_MAX_ROWS") or roll.DEFAULT_MAX_ROWS),
    }


def _target(district_id: int) -> str:
    return f"aboard:{district_id}"


def _check_target(district_id: int, token: str) -> str:
    return f"aboard-check:{district_id}:{token[:16]}"


# Files larger than this in all (some 2,500 open bills) are checked by a worker, not in the
# request: the check of 20,000 open bills takes seconds.
IN_REQUEST_BYTES = 256 * 1024


def _sent_files(errors: dict[str, str]) -> dict[str, tuple[str, bytes]]:
    """The files of the form by kind, each read up to the limit; an error beside each field
    that is missing, too large or empty."""
    limit = _limits()["max_bytes"]
    files: dict[str, tuple[str, bytes]] = {}
    for kind in aboard.FILE_NAMES:
        sent = request.files.get(f"file_{kind}")
        if sent is None or not sent.filename:
            if kind in aboard.REQUIRED_FILES:
                errors[f"file_{kind}"] = _("Choose this file: it is needed.")
            continue
        data = sent.stream.read(limit + 1)  # never more than the limit + 1 byte
        if len(data) > limit:
            errors[f"file_{kind}"] = _(
                "The file is larger than the limit; split it or ask the administrator."
            )
        elif not data:
            errors[f"file_{kind}"] = _("The file is empty.")
        else:
            files[kind] = (Path(sent.filename).name[:200] or aboard.FILE_NAMES[kind][0], data)
    return files


@bp.route("/<int:district_id>/aboard", methods=["GET", "POST"])
@require(*WRITERS)
def aboard_page(district_id: int) -> Any:
    """The district's opening position: booked (what, when, by whom), or the form to upload
    its files."""
    district = visible_district(district_id)
    writer(district)
    position = aboard.position_of(session=get_session(), district_id=district_id)
    errors: dict[str, str] = {}
    if request.method == "POST" and position is None:
        files = _sent_files(errors)
        if not errors:
            roll.purge_uploads(_uploads(), older_than=upload_retention(current_app.config))
            token = aboard.store_files(
                _uploads(),
                files,
                district_id=district_id,
                user_id=me().id,
                max_bytes=_limits()["max_bytes"],
            )
            if aboard.size_of(files) > IN_REQUEST_BYTES:
                job = jobs.start(
                    tasks.ABOARD_CHECK,
                    params={"district_id": district_id, "token": token},
                    district_id=district_id,
                    target=_check_target(district_id, token),
                )
                return redirect(
                    url_for(
                        "account.aboard_preview", district_id=district_id, token=token, job=job.id
                    )
                )
            return redirect(url_for("account.aboard_preview", district_id=district_id, token=token))
    return _page(district, position, errors)


def _page(district: Any, position: Any, errors: dict[str, str]) -> Any:
    """The moving-in page: the position booked (with what stands in the way of its reversal
    and the positions reversed before it), or the form to upload its files."""
    db = get_session()
    district_id = district.id
    return render_template(
        "account/aboard.html",
        district=district,
        position=position,
        files=aboard.files_of(position) if position else [],
        totals=aboard.totals_of(position) if position else {},
        runs=aboard.opened_runs(session=db, district_id=district_id) if position else [],
        blockers=[say(b) for b in aboard.blockers(session=db, position=position)]
        if position
        else [],
        earlier=aboard.reversed_positions(session=db, district_id=district_id),
        reason=request.form.get("reason", "") if errors else "",
        kinds=aboard.FILE_NAMES,
        labels=aboard.FILE_LABELS,
        required=aboard.REQUIRED_FILES,
        errors=errors,
        job=jobs.shown(_target(district_id), tasks.ABOARD_LOAD),
    ), (422 if errors else 200)


def _position_id() -> int:
    raw = request.form.get("position", "")
    if not raw.isdigit():
        raise InputError("position", N_("There is no such opening position."))
    return int(raw)


@bp.route("/<int:district_id>/aboard/reversal", methods=["POST"])
@require(*WRITERS)
def aboard_reverse(district_id: int) -> Any:
    """Reverse the district's opening position as one, with a reason; the page again with
    the refusal (what stands in the way) beside the form."""
    district = visible_district(district_id)
    writer(district)
    form = Form()
    position_id = form.read(_position_id)
    if position_id is not None:
        form.write(
            lambda: aboard.reverse_position(
                session=get_session(),
                actor=me().actor,
                district_id=district_id,
                position_id=position_id,
                reason=request.form.get("reason", ""),
                today=today(),
            )
        )
    done = form.saved(
        _("The opening position is reversed: the corrected files can now be loaded."),
        url_for("account.aboard_page", district_id=district_id),
    )
    if done:
        return done
    position = aboard.position_of(session=get_session(), district_id=district_id)
    return _page(district, position, form.errors)


def _preview(district_id: int, token: str) -> tuple[aboard.Preview | None, bool]:
    """The files' check (None: the files are gone, or a worker still checks them) and
    whether the files are there."""
    try:
        files = aboard.load_files(_uploads(), token, district_id=district_id, user_id=me().id)
    except InputError:
        return None, False
    if aboard.size_of(files) > IN_REQUEST_BYTES:  # checked by a worker (tid/jobs/tasks.py)
        key = tasks.preview_key(current_app)
        return aboard.load_preview(_uploads(), token, user_id=me().id, key=key), True
    checked = aboard.check_position(
        session=get_session(), district_id=district_id, files=files, today=today(), **_limits()
    )
    return checked, True


def _typed(preview: aboard.Preview, errors: dict[str, str]) -> dict[str, Decimal]:
    """The totals as typed, each checked against what the files add up to."""
    typed: dict[str, Decimal] = {}
    for key in preview.totals.to_confirm():
        raw = request.form.get(f"total:{key}", "").strip()
        try:
            typed[key] = parse_money(raw, key, allow_negative=True)
        except InputError:
            errors[f"total:{key}"] = _(
                "Type this total as your trial balance shows it, like 1234.50."
            )
    for problem in aboard.confirmation_problems(preview, typed):
        errors.setdefault(f"total:{problem.field}", say(problem.message))
    return typed


@bp.route("/<int:district_id>/aboard/<token>", methods=["GET", "POST"])
@require(*WRITERS)
def aboard_preview(district_id: int, token: str) -> Any:
    """The files checked: every bad row, the totals to type; their booking, in a worker."""
    district = visible_district(district_id)
    writer(district)
    job = jobs.shown(_target(district_id), tasks.ABOARD_LOAD)
    if job is not None and job.state == JobState.DONE:
        return redirect(url_for("account.aboard_page", district_id=district_id, job=job.id))
    preview, kept = _preview(district_id, token)
    if not kept and job is None:
        abort(404)
    job = job or jobs.shown(_check_target(district_id, token), tasks.ABOARD_CHECK)
    errors: dict[str, str] = {}
    if request.method == "POST" and preview is not None and preview.state == aboard.READY:
        typed = _typed(preview, errors) if not preview.findings else {}
        if not errors and not preview.findings:
            job = jobs.start(
                tasks.ABOARD_LOAD,
                params={
                    "district_id": district_id,
                    "token": token,
                    "confirmed": {k: str(v) for k, v in typed.items()},
                },
                district_id=district_id,
                target=_target(district_id),
                total=len(preview.bills),
            )
            return redirect(
                url_for("account.aboard_preview", district_id=district_id, token=token, job=job.id)
            )
    bad = preview is not None and (bool(preview.findings) or preview.state == aboard.REFUSED)
    return render_template(
        "account/aboard_preview.html",
        district=district,
        token=token,
        preview=preview,
        findings=[(f, finding_message(f)) for f in preview.findings] if preview else [],
        labels=aboard.FILE_LABELS,
        refusal=say(preview.refusal) if preview is not None and preview.refusal else "",
        values={
            k: request.form.get(f"total:{k}", "")
            for k in (preview.totals.to_confirm() if preview else {})
        },
        errors=errors,
        job=job,
    ), (422 if errors or bad else 200)
