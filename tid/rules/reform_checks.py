"""What a reform's changes must keep together, checked before any computation (the project's
reading ``reform-periods``): shares of one whole still add up to it, points that follow one
another still do, the Bank's transfers still fall inside the fiscal year, and a choice is
given only within the years the law gives it.

Each refusal names the change's value (``reform.changes[i].value``) and the values allowed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction
from itertools import pairwise
from typing import Any, Protocol

from tid.rules import params
from tid.rules.errors import InputError
from tid.rules.messages import N_, Message


class _Change(Protocol):
    @property
    def parameter(self) -> str: ...
    @property
    def start(self) -> date: ...
    @property
    def text(self) -> str: ...


class Reform(Protocol):
    """What the checks read of a reform (tid/rules/reform.py's ``Reform``, which calls them)."""

    @property
    def changes(self) -> Sequence[_Change]: ...
    @property
    def resolved(self) -> Sequence[_Change]: ...
    def overlay(self) -> params.Overlay: ...


# Parameters whose values are shares of one whole: (names, whether they must add up to
# exactly the whole or to at most the whole, what the whole is).
SHARE_GROUPS: tuple[tuple[tuple[str, ...], bool, str], ...] = (
    (
        (
            "distribution.irc1994.pool_general_fund_share",
            "distribution.irc1994.pool_bond_fund_share",
        ),
        True,
        N_("the 5/6 of the first 6 points (IRC 1994 § 2051 ¶ (5))"),
    ),
    (
        (
            "distribution.act272.tourism_company_admin_share",
            "distribution.act272.general_fund_share",
            "distribution.act272.convention_bureau_share",
        ),
        False,
        N_("the month's total tax (Act 272-2003 § 31(B))"),
    ),
)

# Points of the tax that follow one another, lowest first (IRC 1994 § 2051 ¶ (5)): the first
# 6, then the General Fund's up to 7 % (9 % casino), then Special Account I's.
_I = "distribution.irc1994"
POINT_ORDERS: tuple[tuple[str, ...], ...] = tuple(
    (f"{_I}.pool_points", f"{_I}.general_fund_up_to.{g}", f"{_I}.special_account_i_up_to.{g}")
    for g in ("non_casino", "casino")
)

# The Bank's transfers (Act 272-2003 § 31(A)): so many monthly transfers from a fiscal month,
# all inside the fiscal year's 12 months.
TRANSFERS = (
    "distribution.act272.bank_installment_count",
    "distribution.act272.bank_first_fiscal_month",
)
MONTHS_IN_FY = 12


def _error(path: str, msgid: str, /, **values: Any) -> InputError:
    return InputError(path, Message(msgid, **values))


def _days(reform: Reform, names: Sequence[str]) -> list[date]:
    """The days the values of ``names`` may change under the reform: each change's and each
    of the law's after the first change."""
    starts = {c.start for c in reform.resolved if c.parameter in names}
    if not starts:
        return []
    first = min(starts)
    law = {v.start for n in names for v in params.history(n).values if v.start > first}
    return sorted(starts | law)


def _culprit(reform: Reform, names: Sequence[str], day: date, field: str) -> tuple[str, str]:
    """The reform's own change in force on ``day`` among ``names`` (the latest): its value's
    field path and its parameter (a base's alone: the reform's field, the first changed)."""
    own = [(c.start, i) for i, c in enumerate(reform.changes) if c.parameter in names]
    before = [o for o in own if o[0] <= day] or own
    if before:
        index = max(before)[1]
        return f"{field}.changes[{index}].value", reform.changes[index].parameter
    return field, next(n for n in names if any(c.parameter == n for c in reform.resolved))


def _number(value: params.ParamValue) -> Fraction:
    return Fraction(*value.ratio)


def _text(value: Fraction) -> str:
    if value.denominator in (1, 2, 4, 5, 8, 10, 16, 20, 25, 50, 100, 1000, 10000):
        return f"{Decimal(value.numerator) / Decimal(value.denominator):f}"
    return f"{value.numerator}/{value.denominator}"


def check(reform: Reform, field: str) -> None:
    """Every check of this module, with the reform in force."""
    with params.overlaid(reform.overlay()):
        check_shares(reform, field)
        check_point_orders(reform, field)
        check_transfers(reform, field)
    check_choices(reform, field)


def check_shares(reform: Reform, field: str) -> None:
    """Shares of one whole must still add up to it (or not pass it) on every day one of them
    may change."""
    for names, exact, whole in SHARE_GROUPS:
        for day in _days(reform, names):
            found = [params.param_or_none(n, day) for n in names]
            if any(v is None for v in found):
                continue
            total = sum((_number(v) for v in found if v is not None), Fraction(0))
            if (total != 1) if exact else (total > 1):
                path, name = _culprit(reform, names, day, field)
                others = sum(
                    (_number(v) for n, v in zip(names, found, strict=True) if v and n != name),
                    Fraction(0),
                )
                raise _error(
                    path,
                    N_(
                        "%(name)s: from %(day)s the shares of %(whole)s add up to %(total)s, "
                        "not %(expected)s (%(names)s); with the others as they are, %(name)s "
                        "may be %(allowed)s"
                    ),
                    name=name,
                    day=day,
                    whole=Message(whole),
                    total=_text(total),
                    expected="1" if exact else Message("at most 1"),
                    names=", ".join(names),
                    allowed=_text(1 - others)
                    if exact
                    else Message("from 0 to %(high)s", high=_text(max(Fraction(0), 1 - others))),
                )


def check_point_orders(reform: Reform, field: str) -> None:
    """Points that follow one another must not pass the next (IRC 1994 § 2051 ¶ (5))."""
    for names in POINT_ORDERS:
        for day in _days(reform, names):
            present = [(n, v) for n in names if (v := params.param_or_none(n, day)) is not None]
            for (low_name, low), (high_name, high) in pairwise(present):
                if _number(low) <= _number(high):
                    continue
                path, name = _culprit(reform, (low_name, high_name), day, field)
                at = [n for n, _v in present].index(name)
                floor = _text(_number(present[at - 1][1])) if at > 0 else "0"
                ceiling = _text(_number(present[at + 1][1])) if at + 1 < len(present) else "1"
                raise _error(
                    path,
                    N_(
                        "%(name)s: from %(day)s the points of the tax follow one another "
                        "(%(names)s), and %(low)s is more than %(high)s; with the others as "
                        "they are, %(name)s may be from %(floor)s to %(ceiling)s"
                    ),
                    name=name,
                    day=day,
                    names=" ≤ ".join(n for n, _v in present),
                    low=f"{low_name} {low.value}",
                    high=f"{high_name} {high.value}",
                    floor=floor,
                    ceiling=ceiling,
                )


def check_transfers(reform: Reform, field: str) -> None:
    """The Bank's transfers must all fall inside the fiscal year (Act 272-2003 § 31(A))."""
    for day in _days(reform, TRANSFERS):
        count = params.param_or_none(TRANSFERS[0], day)
        first = params.param_or_none(TRANSFERS[1], day)
        if count is None or first is None:
            continue
        if first.integer + count.integer - 1 <= MONTHS_IN_FY:
            continue
        path, name = _culprit(reform, TRANSFERS, day, field)
        other = first if name == TRANSFERS[0] else count
        raise _error(
            path,
            N_(
                "%(name)s: from %(day)s %(count)s transfers from fiscal month %(first)s would "
                "end after the fiscal year's twelfth month; with %(other)s at %(value)s, "
                "%(name)s may be from 1 to %(high)s"
            ),
            name=name,
            day=day,
            count=count.integer,
            first=first.integer,
            other=other.name,
            value=other.integer,
            high=MONTHS_IN_FY + 1 - other.integer,
        )


def _span_said(first: date, last: date | None) -> Message:
    if last is None:
        return Message("from %(first)s on", first=first)
    return Message("from %(first)s to %(last)s", first=first, last=last)


def _covers(first: date, last: date | None, start: date, until: date | None) -> bool:
    """Whether the days from ``start`` to ``until`` (None: on and on) lie in ``first``–``last``."""
    return first <= start and (last is None or (until is not None and until <= last))


def check_choices(reform: Reform, field: str) -> None:
    """A choice only within the years the law gives it: every day a change's value is in
    force (to the reform's next change of it, or to the parameter's last day)."""
    resolved = reform.resolved
    for i, change in enumerate(reform.changes):
        parameter = params.history(change.parameter)
        if params.UNITS[parameter.unit] != "text":
            continue
        later = [
            c.start for c in resolved if c.parameter == change.parameter and c.start > change.start
        ]
        end = min(later) - timedelta(days=1) if later else parameter.values[-1].end
        choices = parameter.choices
        if any(
            text == change.text and _covers(first, last, change.start, end)
            for text, first, last in choices
        ):
            continue
        years = [_span_said(first, last) for text, first, last in choices if text == change.text]
        allowed = [text for text, first, last in choices if _covers(first, last, change.start, end)]
        raise _error(
            f"{field}.changes[{i}].value",
            N_(
                "%(name)s: the law gives the choice %(value)s only %(years)s, and this change "
                "would hold it %(span)s; allowed there: %(allowed)s"
            ),
            name=change.parameter,
            value=change.text,
            years=years[0] if len(years) == 1 else "; ".join(years),
            span=_span_said(change.start, end),
            allowed=", ".join(allowed)
            if allowed
            else Message("none (the law's choice changes within these days)"),
        )
