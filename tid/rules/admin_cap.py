"""The cap on administrative expenditures of the special account — 21 LPRA § 6653(6).

The association may use "up to a maximum of" a share of the impost revenues (the statute's
rate, the dated setting ``district.admin_cap_rate``) for administrative expenditures directly
related to administering them. The project measures it per fiscal year
(/readings#admin-cap-per-fiscal-year): administrative
spending booked in the FY ≤ the cap rate × impost revenue collected in the same FY up to that
moment. An expenditure that would break it is refused,
with the figures: revenue to date, admin to date, the cap and the headroom.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import ROUND_DOWN, Decimal

from babel.numbers import format_percent

from tid.rules import readings
from tid.rules.errors import InputError, field_error
from tid.rules.messages import DAY_LOCALES, N_, Message, Variants
from tid.rules.money import CENT, ZERO, money_str
from tid.rules.params import district_setting
from tid.rules.periods import fiscal_year_of
from tid.rules.trace import TraceStep

CITATION = N_("21 LPRA § 6653(6)")
_READING = readings.cite("admin-cap-per-fiscal-year")
_RATE_GIVEN = N_("rate given")

MEASURE_WARNING = Message(
    "The cap is measured per fiscal year against the impost revenue collected in that year "
    "up to this moment (21 LPRA § 6653(6)): an expenditure refused now may fit later in the "
    "year, once more revenue is collected."
)


@dataclass(frozen=True)
class CapMeasure:
    """The cap's arithmetic on a fiscal year's figures: the cap, what may still be spent,
    and the share of the revenue spent on administration."""

    rate: Decimal
    revenue: Decimal  # impost revenue collected in the FY to date
    admin: Decimal  # administrative spending booked in the FY to date (negative: refunds)
    cap: Decimal  # rate × revenue, exact (not rounded)
    headroom: Decimal  # cap − spending, exact (negative when already over the cap)
    max_allowed: Decimal  # the headroom cut down to whole cents, never below zero
    ratio: Decimal | None  # spending ÷ revenue; None without revenue

    @property
    def cap_cents(self) -> Decimal:
        """The cap cut down to whole cents (as a page or a document shows it)."""
        return self.cap.quantize(CENT, rounding=ROUND_DOWN)

    @property
    def ratio_percent(self) -> Decimal | None:
        """The ratio as a percentage with two decimals (for display)."""
        return ratio_percent(self.ratio)


def rate_text(rate: Decimal) -> str:
    """A rate (a fraction) as a percentage, for the English of the command line, logs and
    charts (pages print it in the reader's language with the ``rate`` filter)."""
    return f"{(rate * 100).normalize():f}%"


def rate_words(rate: Decimal) -> Variants:
    """The rate as a message's parameter: :func:`rate_text` as a ``str`` (the command line,
    the logs), written as the pages of each language write a percentage when rendered."""
    forms = {
        lang: str(format_percent(rate, "#,##0.###%", locale=locale))
        for lang, locale in DAY_LOCALES.items()
    }
    return Variants(rate_text(rate), **forms)


def ratio_percent(ratio: Decimal | None) -> Decimal | None:
    """A share of the revenue as a percentage with two decimals (for display)."""
    return None if ratio is None else (ratio * 100).quantize(CENT)


def measure(*, rate: Decimal, revenue: Decimal, admin: Decimal) -> CapMeasure:
    """21 LPRA § 6653(6): the cap is ``rate`` × the impost ``revenue`` collected in the FY to
    date, and what may still be spent is the cap less the FY's administrative spending
    (``admin``). A refund booked this FY of an earlier year's spending makes the FY's
    spending negative; it does not make room above the cap (the cap is measured per FY)."""
    cap = rate * revenue
    headroom = cap - max(ZERO, admin)
    return CapMeasure(
        rate=rate,
        revenue=revenue,
        admin=admin,
        cap=cap,
        headroom=headroom,
        max_allowed=max(headroom, ZERO).quantize(CENT, rounding=ROUND_DOWN),
        ratio=admin / revenue if revenue > 0 else None,
    )


@dataclass(frozen=True)
class AdminCapDecision:
    """Whether a proposed administrative expenditure fits under the cap, with the figures."""

    allowed: bool
    revenue_to_date: Decimal
    admin_to_date: Decimal
    proposed: Decimal
    cap_rate: Decimal
    cap: Decimal  # cap_rate × revenue_to_date, exact
    headroom: Decimal  # cap − admin_to_date, exact (negative when already over the cap)
    max_allowed: Decimal  # the largest expenditure in whole cents that fits now (≥ 0)
    message: str
    warnings: tuple[str, ...]
    trace: tuple[TraceStep, ...]


def admin_cap_rate(on: date | None = None) -> tuple[Decimal, str]:
    """21 LPRA § 6653(6): the cap rate in effect on ``on`` (``None``: the latest), with its
    citation (setting ``admin_cap_rate``)."""
    setting = district_setting("admin_cap_rate", on, field="date")
    if not isinstance(setting.value, Decimal):
        raise ValueError("district.admin_cap_rate must be a decimal")
    return setting.value, setting.citation


def check_admin_expenditure(
    *,
    revenue_to_date: Decimal,
    admin_to_date: Decimal,
    proposed: Decimal,
    cap_rate: Decimal | None = None,
    on: date | None = None,
) -> AdminCapDecision:
    """21 LPRA § 6653(6): administrative expenditures may not exceed the cap rate of the impost
    revenues collected; measured per fiscal year (/readings#admin-cap-per-fiscal-year).

    ``revenue_to_date`` and ``admin_to_date`` are the impost revenue collected and the
    administrative spending booked in the fiscal year so far; ``proposed`` is the new
    expenditure. ``cap_rate`` defaults to the setting in effect on ``on`` (the day of the
    expenditure). Exact: no rounding anywhere; the expenditure fits when
    ``admin_to_date + proposed <= cap_rate × revenue_to_date``.
    """
    for name, value in (
        ("revenue_to_date", revenue_to_date),
        ("admin_to_date", admin_to_date),
        ("proposed", proposed),
    ):
        if not isinstance(value, Decimal) or not value.is_finite():
            raise field_error(name, Message(N_("an amount is needed")))
        if value < 0:
            raise InputError(name, Message(N_("%(name)s cannot be negative"), name=name))
    if cap_rate is None:
        cap_rate, rate_citation = admin_cap_rate(on)
    else:
        rate_citation = f"{CITATION}; {_RATE_GIVEN}"
    if not 0 <= cap_rate <= 1:
        raise field_error("cap_rate", Message(N_("a share between 0 and 1, like 0.25")))

    measured = measure(rate=cap_rate, revenue=revenue_to_date, admin=admin_to_date)
    cap, headroom, max_allowed = measured.cap, measured.headroom, measured.max_allowed
    after = admin_to_date + proposed
    allowed = after <= cap
    percent = rate_text(cap_rate)
    fy = f"FY{fiscal_year_of(on).label} " if on is not None else ""
    figures = (
        f"{fy}impost revenue collected to date ${_amount(revenue_to_date)}; cap {percent} = "
        f"${_amount(cap)}; administrative spending to date ${_amount(admin_to_date)}; "
        f"headroom ${_amount(headroom)}"
    )
    if allowed:
        message = (
            f"Allowed: ${_amount(proposed)} brings administrative spending to "
            f"${_amount(after)}, within the cap ({figures})."
        )
    else:
        message = (
            f"Refused: ${_amount(proposed)} would bring administrative spending to "
            f"${_amount(after)}, above the cap ({figures}); at most ${_amount(max_allowed)} "
            f"can be spent now ({CITATION})."
        )
    trace = _trace(measured, proposed, allowed, rate_citation)
    return AdminCapDecision(
        allowed=allowed,
        revenue_to_date=revenue_to_date,
        admin_to_date=admin_to_date,
        proposed=proposed,
        cap_rate=cap_rate,
        cap=cap,
        headroom=headroom,
        max_allowed=max_allowed,
        message=message,
        warnings=(MEASURE_WARNING,),
        trace=trace,
    )


def _trace(
    m: CapMeasure, proposed: Decimal, allowed: bool, rate_citation: str
) -> tuple[TraceStep, ...]:
    """The steps of a decision on the cap, each with its figure and its source."""
    return (
        TraceStep(Message("cap rate"), f"{m.rate}", rate_citation, "district.admin_cap_rate"),
        TraceStep(
            Message("impost revenue collected in the FY to date"),
            money_str(m.revenue),
            CITATION,
        ),
        TraceStep(Message("cap = rate × revenue"), _amount(m.cap), CITATION),
        TraceStep(
            Message("administrative spending in the FY to date"), money_str(m.admin), CITATION
        ),
        TraceStep(Message("headroom = cap − spending"), _amount(m.headroom), _READING),
        TraceStep(Message("proposed expenditure"), money_str(proposed), _READING),
        TraceStep(
            Message("decision"), Message("allowed") if allowed else Message("refused"), CITATION
        ),
    )


def _amount(value: Decimal) -> str:
    """An exact amount for a sentence: 1,234.50 when whole cents, else every digit (never
    rounded: 61.7285)."""
    if value == value.quantize(CENT, rounding=ROUND_DOWN):
        return f"{value:,.2f}"
    return f"{value.normalize():,f}"
