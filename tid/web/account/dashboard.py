"""The account's first pages: the districts a person may open, and a district's dashboard
with the cap's line, the months' bars and the balances."""

from __future__ import annotations

from typing import Any

from flask import redirect, render_template, url_for
from flask_babel import gettext as _
from markupsafe import Markup

from tid.db import get_session
from tid.i18n import rate
from tid.render.account_charts import money_bars, ratio_chart
from tid.services.account import account_pages
from tid.services.auth import access as policy
from tid.web.access import may_write_district, me, require, visible_district
from tid.web.account.blueprint import READERS, bp
from tid.web.account.fields import fiscal_year
from tid.web.account.kept import kept_content


@bp.route("")
@require(*READERS)
def districts() -> Any:
    user = me()
    own = policy.own_district(user)
    if own:
        return redirect(url_for("account.dashboard", district_id=own))
    rows = account_pages.districts_seen_by(session=get_session(), person=user)
    return render_template("account/districts.html", rows=rows)


@bp.route("/<int:district_id>")
@require(*READERS)
def dashboard(district_id: int) -> Any:
    district = visible_district(district_id)
    fy = fiscal_year(district_id)
    may_write = may_write_district(district)

    def make() -> Markup:
        seen = account_pages.dashboard(session=get_session(), district_id=district_id, fy=fy)
        return Markup(
            render_template(
                "account/_dashboard_body.html",
                district=district,
                fy=fy,
                figures=seen.figures,
                months=seen.months,
                bank=seen.bank,
                receivable=seen.receivable,
                owner_credit=seen.owner_credit,
                bars=money_bars(seen.months, title=_("Revenue and spending by month")),
                ratio=ratio_chart(
                    seen.months,
                    seen.figures.rate,
                    title=_(
                        "Administrative ratio and the %(rate)s line", rate=rate(seen.figures.rate)
                    ),
                ),
                may_write=may_write,
                checks=seen.checks,
            )
        )

    body = kept_content(district_id=district_id, key=(fy.label,), make=make)
    return render_template(
        "account/dashboard.html", district=district, fy=fy, body=body, may_write=may_write
    )
