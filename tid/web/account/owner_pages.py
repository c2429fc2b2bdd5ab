"""A property's owners: the one its next notice goes to, a sale recorded (the new owner and
their mailing address, the deed or the CRIM's change), and every change of owner, recorded
or found by a roll import. The debt stays with the property."""

from __future__ import annotations

from typing import Any

from flask import render_template, request, url_for
from flask_babel import gettext as _

from tid.db import get_session
from tid.services.closing import transfers
from tid.services.liens import impost_lien as liens
from tid.services.notices.contents import mailing_lines
from tid.services.owners import owner_email
from tid.web.access import may_write_district, me, require, visible_district
from tid.web.account.blueprint import READERS, bp
from tid.web.account.fields import date_field, district_property, writer
from tid.web.forms import Form
from tid.web.util import today

_OWNER = (
    "owner_names",
    "mailing_urbanization",
    "mailing_line1",
    "mailing_line2",
    "mailing_city",
    "mailing_state",
    "mailing_zip",
)
_FIELDS = ("transferred_on", *_OWNER, "note")


def _recorded(district_id: int, property_id: int, values: dict[str, str]) -> Form:
    form = Form()
    owner = transfers.NewOwner(**{name: values[name] for name in _OWNER})
    on = form.read(lambda: date_field(values, "transferred_on"))
    if on is None:
        form.add(transfers.owner_problems(owner))
        return form
    form.write(
        lambda: transfers.record_transfer(
            session=get_session(),
            actor=me().actor,
            district_id=district_id,
            property_id=property_id,
            transferred_on=on,
            owner=owner,
            note=values["note"],
            today=today(),
        )
    )
    return form


@bp.route("/<int:district_id>/properties/<int:property_id>/owners", methods=["GET", "POST"])
@require(*READERS)
def property_owners(district_id: int, property_id: int) -> Any:
    district = visible_district(district_id)
    prop = district_property(district, property_id)
    db = get_session()
    errors: dict[str, str] = {}
    values = {n: request.form.get(n, "") for n in _FIELDS}
    if request.method == "POST":
        writer(district)
        form = _recorded(district_id, property_id, values)
        target = url_for(
            "account.property_owners", district_id=district_id, property_id=property_id
        )
        done = form.saved(
            _("Change of owner recorded: the next notice goes to the new owner."), target
        )
        if done:
            return done
        errors = form.errors
    else:
        values.update(mailing_state="PR", transferred_on=today().isoformat())
    year = transfers.latest_year(session=db, property_id=property_id)
    return render_template(
        "account/owners.html",
        district=district,
        prop=prop,
        year=year,
        address=[line for line in mailing_lines(year) if line] if year else [],
        history=transfers.transfers_of(session=db, property_id=property_id),
        lien=liens.impost_lien(session=db, prop=prop, today=today()),
        email=owner_email.on_file(session=db, property_id=property_id),
        values=values,
        errors=errors,
        may_write=may_write_district(district),
    ), (422 if errors else 200)
