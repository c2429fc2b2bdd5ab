"""The Act 272-2003 regime, month by month (/readings#seam-of-2003): § 31(A)–(B) from October
2003, with the Convention Bureau's floor and the Convention Center's reserve."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from tid.rules import readings
from tid.rules.distribution.trace_figures import _pct
from tid.rules.errors import InputError, field_error
from tid.rules.messages import N_, Amount, FieldRef, Figure, Message, joined
from tid.rules.money import from_cents, money_str, to_cents
from tid.rules.params import ParamValue, history, note_period, param, param_or_none
from tid.rules.periods import (
    FiscalYear,
    fiscal_month,
    fiscal_month_days,
    fiscal_year_of,
    month_label,
    month_of_fiscal,
)
from tid.rules.trace import TraceStep
from tid.rules.waterfall import (
    Recipient,
    WaterfallResult,
    installment_schedule,
    missing_months_warning,
    run_waterfall,
)

ACT272_KEYS = (
    "authority_debt_service",
    "tourism_company_admin",
    "general_fund",
    "convention_bureau",
    "tourism_company_remainder",
)
RESERVE_KEY = "convention_center_reserve"
CARRIED_KEYS = ("authority_debt_service", "convention_bureau")
_A = "distribution.act272"
REMAINDER_LABEL = N_(
    "Tourism Company — remainder (the supplied § 31(B) is cut off after clause iii)"
)
RESERVE_LABEL = N_("reserve (General Fund after the deficit is known)")


@dataclass(frozen=True, slots=True)
class ConventionCenterReserve:
    """§ 31(B)(ii)'s reserve of a fiscal year inside its years (the fiscal year of the
    opening and the ten after it), in cents.

    ``deficit`` is the FY's operating deficit when given; ``covered`` the part above the
    threshold that the reserve covers; ``released`` the surplus for the Treasury.
    """

    opened_on: date
    first_fiscal_year: FiscalYear
    last_fiscal_year: FiscalYear
    held: int
    deficit: int | None
    threshold: int
    covered: int | None
    released: int | None


@dataclass(frozen=True, slots=True)
class Act272Result:
    """A fiscal year's months under Act 272-2003 § 31, in cents.

    ``joined``: fiscal month distributed → the fiscal months whose money it carries (only
    October 2003, which carries September 2003's, /readings#seam-of-2003).
    """

    fiscal_year: FiscalYear
    installments: tuple[int, ...]
    floor_on: bool
    waterfall: WaterfallResult
    warnings: tuple[str, ...]
    trace: tuple[TraceStep, ...]
    joined: dict[int, tuple[tuple[int, int], ...]]
    reserve: ConventionCenterReserve | None


def act272_first_month() -> date:
    """The first month § 31 distributes: the month after enactment (October 2003)."""
    value = history(f"{_A}.first_month").values[-1].value
    assert isinstance(value, date)
    return value


def act272_first_collection_month() -> date:
    """The first month whose collections are given under § 31 (September 2003, whose money
    joins October's)."""
    value = history(f"{_A}.first_collection_month").values[-1].value
    assert isinstance(value, date)
    return value


def reserve_years(opened_on: date) -> tuple[FiscalYear, FiscalYear, ParamValue]:
    """§ 31(B)(ii): the fiscal years of the Convention Center's reserve — the FY in which it
    opened and the ten after it (the years count from the FY of the opening)."""
    years = param(f"{_A}.convention_center_reserve_years", max(opened_on, act272_first_month()))
    first = fiscal_year_of(opened_on)
    return first, FiscalYear(first.start_year + years.integer), years


def reserve_years_said(years: ParamValue) -> Message:
    """§ 31(B)(ii)'s years of the reserve, as the project reads them: the fiscal year of the
    opening and the ten subsequent ones, eleven in all."""
    return Message(
        "The reserve's years are the fiscal year of the Convention Center's opening and the "
        "%(after)s subsequent fiscal years, %(total)s in all: Act 272-2003 § 31(B)(ii) "
        "(“As of the year … and during the ten (10) subsequent years”) as the project reads "
        "it (%(reading)s).",
        reading=readings.note("convention-center-reserve-years"),
        after=years.integer,
        total=years.integer + 1,
    )


# The parameters § 31 reads month by month (on each month's first day) and those it reads
# for the fiscal year (on its first day): the project's reading ``reform-periods``.
MONTHLY = tuple(
    f"{_A}.{name}"
    for name in (
        "tourism_company_admin_share",
        "general_fund_share",
        "convention_bureau_share",
        "convention_bureau_monthly_floor",
    )
)
YEARLY = tuple(
    f"{_A}.{name}"
    for name in (
        "bank_installment_count",
        "bank_first_fiscal_month",
        "convention_bureau_annual_floor",
        "convention_center_reserve_account",
        "convention_center_reserve_release",
    )
)
# (The reserve's years are read on the day of the opening, like a stay's values on its date;
# its deficit threshold from the later of the year's first day and the opening.)
_THRESHOLD = f"{_A}.convention_center_deficit_threshold"


def act272_recipients(
    fy: FiscalYear,
    bank_certified_amount: Decimal,
    *,
    floor_on: bool,
    reserve: bool = False,
    month: int = 1,
) -> tuple[list[Recipient], tuple[int, ...], list[ParamValue]]:
    """The § 31(A)–(B) waterfall of fiscal month ``month`` of ``fy`` as data: its shares and
    floor those in force on the month's first day, the Bank's transfers the year's.

    With ``reserve`` the 5 % of (ii) is held in the Convention Center's reserve.
    """
    count = param(f"{_A}.bank_installment_count", fy.start)
    first = param(f"{_A}.bank_first_fiscal_month", fy.start)
    year, number = month_of_fiscal(fy, month)
    # the shares are Act 272's, from 2003-09-09
    on = max(date(year, number, 1), act272_first_month())
    admin = param(f"{_A}.tourism_company_admin_share", on)
    gf = param(f"{_A}.general_fund_share", on)
    account = param(f"{_A}.convention_center_reserve_account", on)
    bureau = param(f"{_A}.convention_bureau_share", on)
    floor = param(f"{_A}.convention_bureau_monthly_floor", on)
    schedule = installment_schedule(to_cents(bank_certified_amount), count.integer, first.integer)
    recipients = [
        Recipient(
            "authority_debt_service",
            Message("Bank transfer for the Convention Center District Authority's debt service"),
            f"{count.citation}; {first.citation}",
            installments=schedule,
            carry_forward=True,
            parameter=count.name,
        ),
        Recipient(
            "tourism_company_admin",
            Message(
                "Tourism Company, administration of the tax (%(share)s of the month's total)",
                share=_pct(admin),
            ),
            admin.citation,
            share=admin.decimal,
            parameter=admin.name,
        ),
        Recipient(
            RESERVE_KEY if reserve else "general_fund",
            Message(
                "Convention Center %(reserve)s (%(share)s of the month's total)",
                reserve=Message(RESERVE_LABEL),
                share=_pct(gf),
            )
            if reserve
            else Message("Treasury General Fund (%(share)s of the month's total)", share=_pct(gf)),
            account.citation if reserve else gf.citation,
            share=gf.decimal,
            parameter=account.name if reserve else gf.name,
        ),
        Recipient(
            "convention_bureau",
            _bureau_label(bureau, floor, floor_on),
            bureau.citation + (f"; {floor.citation}" if floor_on else ""),
            share=bureau.decimal,
            floor=floor.cents if floor_on else None,
            parameter=floor.name if floor_on else bureau.name,
            # In FY2003-04 the months elapsed count from October, the first distributed.
            first_month=first.integer if floor_on else 1,
        ),
        Recipient(
            "tourism_company_remainder",
            Message(REMAINDER_LABEL),
            f"{N_('Act 272-2003 § 31(B)')}; {readings.cite('remainder-to-tourism-company')}",
            remainder=True,
        ),
    ]
    return recipients, schedule, [count, first, admin, gf, bureau, floor]


def _bureau_label(bureau: ParamValue, floor: ParamValue, floor_on: bool) -> Message:
    if floor_on:
        return Message(
            "Tourism Company for the Convention Bureau (%(share)s of the month's total; "
            "owed to date at least %(floor)s × months elapsed)",
            share=_pct(bureau),
            floor=Amount(floor.decimal),
        )
    return Message(
        "Tourism Company for the Convention Bureau (%(share)s of the month's total)",
        share=_pct(bureau),
    )


def _share_step(pv: ParamValue) -> TraceStep:
    """A share's step: its parameter (named by its description on a page) and its value."""
    return TraceStep(
        Message("Share %(name)s", name=FieldRef(pv.name)), str(pv.value), pv.citation, pv.name
    )


def _floor_warnings(
    fy: FiscalYear, floor: ParamValue, bureau_floor_from_fy: FiscalYear | None, floor_on: bool
) -> list[str]:
    if bureau_floor_from_fy is None:
        return [
            Message(
                "Not given: %(field)s. The Convention Bureau's floor of $%(decimal)s a month "
                "is off: the supplied § 31(B)(iii) leaves blank the fiscal year it applies "
                "from (%(reading)s).",
                field=FieldRef("bureau_floor_from_fy"),
                reading=readings.note("bureau-floor-year"),
                decimal=format(floor.decimal, ",.2f"),
            )
        ]
    if floor_on:
        annual = param(f"{_A}.convention_bureau_annual_floor", max(fy.start, floor.start))
        return [
            Message(
                "The Convention Bureau's floor applies from FY%(label)s (%(field)s; "
                "the supplied § 31(B)(iii) leaves the fiscal year "
                "blank). It is annual, $%(decimal)s, paid in monthly instalments of "
                "$%(decimal2)s, and cumulative inside the fiscal year: after month m the "
                "Bureau is owed to date the greater of 9%% of the year's tax to date and "
                "$%(decimal2)s × m, so early months whose 9%% is larger count toward the floor "
                "of later months (%(reading)s).",
                reading=readings.note("bureau-floor-to-date"),
                field=FieldRef("bureau_floor_from_fy"),
                label=bureau_floor_from_fy.label,
                decimal=format(annual.decimal, ",.2f"),
                decimal2=format(floor.decimal, ",.2f"),
            )
        ]
    return [
        Message(
            "The Convention Bureau's floor is off in FY%(label)s: it applies from "
            "FY%(label2)s (%(field)s; the supplied § 31(B)(iii) leaves the year blank).",
            field=FieldRef("bureau_floor_from_fy"),
            label=fy.label,
            label2=bureau_floor_from_fy.label,
        )
    ]


def _reserve(
    fy: FiscalYear,
    opened_on: date | None,
    deficit: Decimal | None,
    trace: list[TraceStep],
    warnings: list[str],
) -> tuple[date, FiscalYear, FiscalYear] | None:
    """Whether § 31(B)(ii)'s reserve holds the 5 % in ``fy`` (and its warnings and trace)."""
    gf = param(f"{_A}.general_fund_share", max(fy.start, act272_first_month()))
    if opened_on is None:
        if deficit is not None:
            raise field_error(
                "convention_center_opened_on",
                Message(
                    "give the day the Convention Center opened; the operating deficit is used "
                    "only in the reserve's years (the fiscal year of the opening and the ten "
                    "after it)"
                ),
            )
        years = param(f"{_A}.convention_center_reserve_years", act272_first_month())
        warnings.append(
            Message(
                "Not given: %(field)s. The %(gf)s goes to the Treasury General Fund, though "
                "in the years of the Convention Center's reserve the %(gf)s is held for the "
                "Center's operating deficit. %(years)s",
                gf=_pct(gf),
                field=FieldRef("convention_center_opened_on"),
                years=reserve_years_said(years),
            )
        )
        return None
    first, last, years = reserve_years(opened_on)
    inside = first <= fy <= last
    trace.append(
        TraceStep(
            Message(
                "Convention Center reserve: FY%(label)s (opened %(opened_on)s) and the "
                "%(integer)s fiscal years after it, %(total)s in all, to FY%(label2)s",
                label=first.label,
                opened_on=opened_on,
                integer=years.integer,
                total=years.integer + 1,
                label2=last.label,
            ),
            f"FY{fy.label} {'inside' if inside else 'outside'}",
            years.citation,
            years.name,
        )
    )
    if not inside:
        if deficit is not None:
            warnings.append(
                Message(
                    "The Convention Center's operating deficit was not used: FY%(label)s is "
                    "outside the reserve's years (FY%(label2)s to FY%(label3)s), so the %(gf)s "
                    "goes to the Treasury General Fund (Act 272-2003 § 31(B)(ii)).",
                    label=fy.label,
                    label2=first.label,
                    label3=last.label,
                    gf=_pct(gf),
                )
            )
        return None
    return opened_on, first, last


def _under_irc1994(fy: FiscalYear) -> InputError:
    return field_error(
        "fiscal_year",
        Message(
            N_(
                "FY%(fy_label)s falls under the IRC 1994 regime: give its collections by "
                "lodging type (Act 272-2003 § 31 distributes from October 2003)"
            ),
            fy_label=fy.label,
        ),
    )


def distribute_act272(
    fy: FiscalYear,
    months: Sequence[tuple[int, int]],
    bank_certified_amount: Decimal,
    bureau_floor_from_fy: FiscalYear | None = None,
    *,
    convention_center_opened_on: date | None = None,
    convention_center_operating_deficit: Decimal | None = None,
) -> Act272Result:
    """Distribute the months of ``fy`` under Act 272-2003 § 31(A)–(B).

    § 31(A): the Bank's certified amount in monthly transfers, a month's shortfall carried to
    later months of the FY. § 31(B): of what is left, 2 % of the total → Tourism Company;
    5 % → General Fund (for ten years from the Convention Center's opening, a reserve that
    covers its operating deficit above $2,500,000, the surplus to the General Fund); 9 % →
    Convention Bureau (with the floor on: owed to date max(9 % of the tax to date,
    $375,000 × months elapsed)); the rest → Tourism Company. ``months``: (fiscal month,
    cents collected). A month not given collected nothing and still counts. September 2003
    (collected from 2003-09-09) joins October's money.
    """
    if param_or_none(f"{_A}.bank_installment_count", fy.start) is None:
        raise field_error(
            "fiscal_year",
            Message(
                "FY%(fy)s falls under the IRC 1994 regime: give its collections by lodging "
                "type (Act 272-2003 § 31 distributes from October 2003)",
                fy=fy.label,
            ),
        )
    periods, joined = _act272_periods(fy, months)
    trace: list[TraceStep] = []
    warnings: list[str] = [_act272_opening_warning()]
    reserve_on = _reserve(
        fy, convention_center_opened_on, convention_center_operating_deficit, trace, warnings
    )
    floor_on = bureau_floor_from_fy is not None and fy >= bureau_floor_from_fy
    months_used = _act272_months(
        fy, bank_certified_amount, floor_on=floor_on, reserve=reserve_on is not None
    )
    recipients, schedule, used = months_used[0]
    _note_periods(fy, [m for m, _c in periods], convention_center_opened_on)
    waterfall = run_waterfall(
        recipients,
        periods,
        fiscal_year=fy.start_year,
        by_month={m: found[0] for m, found in enumerate(months_used, 1)},
    )
    count, first, floor = used[0], used[1], used[5]
    trace.insert(0, _act272_bank_transfers(fy, count, first, schedule))
    trace += [_share_step(pv) for pv in used[2:5]]
    trace += _act272_month_values(fy, [m for m, _c in periods], months_used)
    warnings += _floor_warnings(fy, floor, bureau_floor_from_fy, floor_on)
    if floor_on:
        floors = [found[2][5] for found in months_used]
        trace += _act272_bureau_floor(fy, floors, waterfall, recipients)
    reserve: ConventionCenterReserve | None = None
    if reserve_on is not None:
        reserve = _act272_reserve_outcome(
            fy, reserve_on, waterfall, used[3], convention_center_operating_deficit, trace, warnings
        )
    warnings += _act272_seam_warnings(fy, joined)
    trace += _act272_joined_months(fy, joined)
    first_distributed = act272_first_month()
    first_fm = fiscal_month(first_distributed.year, first_distributed.month)
    gaps = missing_months_warning(
        fy, [m for m, _ in periods], first_fm if fy.start <= first_distributed else 1
    )
    if gaps:
        warnings.append(gaps)
    trace += _act272_outstanding(fy, waterfall, floor)
    part_year = _act272_part_year_warning(fy, waterfall, schedule)
    if part_year is not None:
        warnings.append(part_year)
    return Act272Result(
        fy, schedule, floor_on, waterfall, tuple(warnings), tuple(trace), joined, reserve
    )


def _act272_months(
    fy: FiscalYear, bank_certified_amount: Decimal, *, floor_on: bool, reserve: bool
) -> list[tuple[list[Recipient], tuple[int, ...], list[ParamValue]]]:
    """Each fiscal month's waterfall (1 = July): its shares and floor read on its first day
    (before October 2003, October's)."""
    first_distributed = act272_first_month()
    first_fm = fiscal_month(first_distributed.year, first_distributed.month)
    start = first_fm if fy.start <= first_distributed else 1
    found: list[tuple[list[Recipient], tuple[int, ...], list[ParamValue]]] = []
    seen: tuple[tuple[object, str], ...] = ()
    for m in range(1, 13):
        on = max(fiscal_month_days(fy, max(m, start))[0], first_distributed)
        values = tuple((pv.value, pv.citation) for pv in (param(n, on) for n in MONTHLY))
        if found and values == seen:  # the month before's values: its waterfall
            found.append(found[-1])
            continue
        found.append(
            act272_recipients(
                fy, bank_certified_amount, floor_on=floor_on, reserve=reserve, month=max(m, start)
            )
        )
        seen = values
    return found


def _note_periods(fy: FiscalYear, months: Sequence[int], opened_on: date | None) -> None:
    """Note a reform's change not used: one dated inside a month given (its shares, its
    floor) or inside the fiscal year (its transfers, its annual floor, its reserve)."""
    year_said = Message("FY%(label)s", label=fy.label)
    # The transfers are read on the year's first day; the rest of § 31 from the Act's first
    # month (in FY2003-04, October 2003).
    note_period(YEARLY[:2], fy.start, fy.end, year_said)
    note_period(YEARLY[2:], max(fy.start, act272_first_month()), fy.end, year_said)
    if opened_on is not None and opened_on <= fy.end:
        note_period((_THRESHOLD,), max(fy.start, opened_on), fy.end, year_said)
    for m in months:
        note_period(MONTHLY, *fiscal_month_days(fy, m))


def _act272_month_values(
    fy: FiscalYear,
    months: Sequence[int],
    months_used: Sequence[tuple[list[Recipient], tuple[int, ...], list[ParamValue]]],
) -> list[TraceStep]:
    """Each share and floor whose value in a month given is not the one before it (a
    reform's change from that month: read on the month's first day)."""
    steps = []
    for m in months:
        if m == 1:
            continue
        before, now = months_used[m - 2][2], months_used[m - 1][2]
        for old, new in zip(before[2:6], now[2:6], strict=True):
            if old.value == new.value and old.citation == new.citation:
                continue
            steps.append(
                TraceStep(
                    Message(
                        "%(month)s on: %(name)s",
                        month=month_label(*month_of_fiscal(fy, m)),
                        name=new.name,
                    ),
                    str(new.value),
                    new.citation,
                    new.name,
                )
            )
    return steps


def _act272_periods(
    fy: FiscalYear, months: Sequence[tuple[int, int]]
) -> tuple[list[tuple[int, int]], dict[int, tuple[tuple[int, int], ...]]]:
    """§ 31 distributes from the month after the Act's approval: September 2003's money
    (collected from 2003-09-09) joins October's (/readings#seam-of-2003). Returns the periods to
    distribute, (fiscal month, cents), and the months joined: fiscal month distributed → the
    (fiscal month, cents) it carries."""
    first_distributed = act272_first_month()
    first_fm = fiscal_month(first_distributed.year, first_distributed.month)
    joined: dict[int, tuple[tuple[int, int], ...]] = {}
    periods: list[tuple[int, int]] = []
    early: list[tuple[int, int]] = []
    for m, cents in months:
        if fy.start <= first_distributed and m < first_fm:
            early.append((m, cents))  # September 2003: joins October's money
            continue
        if early and m == first_fm:
            joined[m] = (*early, (m, cents))
            periods.append((m, cents + sum(c for _m, c in early)))
        else:
            if early:  # October not given: September's money is October's alone
                joined[first_fm] = tuple(early)
                periods.append((first_fm, sum(c for _m, c in early)))
            periods.append((m, cents))
        early = []
    if early:
        joined[first_fm] = tuple(early)
        periods.append((first_fm, sum(c for _m, c in early)))
    return periods, joined


def _act272_opening_warning() -> Message:
    """Act 272-2003 § 31, opening words: the fiscal year it starts from is blank."""
    opening = param(f"{_A}.opening_fiscal_year", act272_first_month())
    return Message(
        "Act 272-2003 § 31 opens 'For the fiscal year [blank] and subsequent fiscal "
        "years': the supplied text leaves the year blank; this project distributes "
        "under it from FY%(value)s (the Act's approval, %(approved)s; %(reading)s).",
        approved=date(2003, 9, 9),
        reading=readings.note("act-272-distribution-year"),
        value=opening.value,
    )


def _act272_bank_transfers(
    fy: FiscalYear, count: ParamValue, first: ParamValue, schedule: Sequence[int]
) -> TraceStep:
    """§ 31(A): the Bank's certified amount in monthly transfers."""
    return TraceStep(
        Message(
            "Bank certified amount in %(integer)s monthly transfers from %(value)s",
            integer=count.integer,
            value=month_label(*month_of_fiscal(fy, first.integer)),
        ),
        joined([Figure(from_cents(c)) for c in schedule if c], ", "),
        f"{count.citation}; {first.citation}",
        count.name,
    )


def _act272_bureau_floor(
    fy: FiscalYear,
    floors: Sequence[ParamValue],
    waterfall: WaterfallResult,
    recipients: list[Recipient],
) -> list[TraceStep]:
    """§ 31(B)(iii): the Convention Bureau's floor owed to date, month by month (``floors``:
    each fiscal month's, read on its first day)."""
    i = waterfall.keys.index("convention_bureau")
    steps = []
    for p in waterfall.periods:
        elapsed = recipients[i].elapsed(p.fiscal_month)
        counted = floors[p.fiscal_month - elapsed : p.fiscal_month]
        floor = floors[p.fiscal_month - 1]
        label = month_label(*month_of_fiscal(fy, p.fiscal_month))
        if all(f.cents == floor.cents for f in counted):
            said = Message(
                "%(value)s: Convention Bureau floor to date = %(decimal)s × "
                "%(elapsed)s months elapsed",
                value=label,
                decimal=money_str(floor.decimal),
                elapsed=elapsed,
            )
        else:
            said = Message(
                "%(value)s: Convention Bureau floor to date = the sum of the floors of the "
                "%(elapsed)s months elapsed, each month's in force on its first day",
                value=label,
                elapsed=elapsed,
            )
        steps.append(
            TraceStep(
                said,
                money_str(from_cents(sum(f.cents for f in counted))),
                floor.citation,
                floor.name,
            )
        )
    return steps


def _act272_reserve_outcome(
    fy: FiscalYear,
    reserve_on: tuple[date, FiscalYear, FiscalYear],
    waterfall: WaterfallResult,
    gf: ParamValue,
    operating_deficit: Decimal | None,
    trace: list[TraceStep],
    warnings: list[str],
) -> ConventionCenterReserve:
    """§ 31(B)(ii): the Convention Center's reserve held in ``fy`` (the 5 % of each month);
    with the year's operating deficit, what it covers above the threshold and the surplus
    released to the Treasury General Fund (with their ``trace`` and ``warnings``)."""
    opened_on, first_fy, last_fy = reserve_on
    on = max(fy.start, opened_on)
    threshold = param(_THRESHOLD, on)
    years = param(f"{_A}.convention_center_reserve_years", max(opened_on, act272_first_month()))
    held = dict(zip(waterfall.keys, waterfall.totals, strict=True))[RESERVE_KEY]
    if operating_deficit is None:
        warnings.append(
            Message(
                "FY%(label)s is inside the years of the Convention Center's reserve "
                "(opened %(opened_on)s; FY%(label2)s to FY%(label3)s): the %(gf)s is kept as "
                "reserve (General Fund after the deficit is known). Give "
                "convention_center_operating_deficit (the FY's deficit) to see what covers the "
                "deficit above $%(decimal)s and what the Treasury receives. %(years)s",
                label=fy.label,
                opened_on=opened_on,
                label2=first_fy.label,
                label3=last_fy.label,
                years=reserve_years_said(years),
                gf=_pct(gf),
                decimal=format(threshold.decimal, ",.2f"),
            )
        )
        return ConventionCenterReserve(
            opened_on, first_fy, last_fy, held, None, threshold.cents, None, None
        )
    deficit = to_cents(operating_deficit)
    covered = min(held, max(0, deficit - threshold.cents))
    released = held - covered
    trace += _act272_reserve_steps(fy, gf, threshold, held, deficit, covered, released)
    warnings.append(
        Message(
            "FY%(label)s is inside the years of the Convention Center's reserve "
            "(opened %(opened_on)s; FY%(label2)s to FY%(label3)s): the %(gf)s of each month "
            "is held in reserve; it covers %(covered)s of the operating deficit above "
            "$%(decimal)s, and the surplus, %(released)s, goes to the Treasury General Fund. "
            "%(years)s",
            label=fy.label,
            opened_on=opened_on,
            label2=first_fy.label,
            label3=last_fy.label,
            years=reserve_years_said(years),
            gf=_pct(gf),
            covered=Amount.of_cents(covered),
            decimal=format(threshold.decimal, ",.2f"),
            released=Amount.of_cents(released),
        )
    )
    return ConventionCenterReserve(
        opened_on, first_fy, last_fy, held, deficit, threshold.cents, covered, released
    )


def _act272_reserve_steps(
    fy: FiscalYear,
    gf: ParamValue,
    threshold: ParamValue,
    held: int,
    deficit: int,
    covered: int,
    released: int,
) -> list[TraceStep]:
    """§ 31(B)(ii): the reserve held, the deficit it covers, the surplus released."""
    on = max(fy.start, act272_first_month())
    account = param(f"{_A}.convention_center_reserve_account", on)
    release = param(f"{_A}.convention_center_reserve_release", on)
    return [
        TraceStep(
            Message(
                "Convention Center reserve held in FY%(label)s (%(gf)s of each month)",
                label=fy.label,
                gf=_pct(gf),
            ),
            money_str(from_cents(held)),
            account.citation,
            account.name,
        ),
        TraceStep(
            Message(
                "Operating deficit %(deficit)s above %(decimal)s, covered by the "
                "reserve as far as it reaches",
                deficit=money_str(from_cents(deficit)),
                decimal=money_str(threshold.decimal),
            ),
            money_str(from_cents(covered)),
            threshold.citation,
            threshold.name,
        ),
        TraceStep(
            Message("Surplus released from the reserve to the Treasury General Fund"),
            money_str(from_cents(released)),
            release.citation,
            release.name,
        ),
    ]


def _act272_seam_warnings(
    fy: FiscalYear, joined: Mapping[int, tuple[tuple[int, int], ...]]
) -> list[str]:
    """§ 31(B) cut off after clause (iii); the Act from its approval (FY2003-04); September
    2003's money joined to October's (/readings#seam-of-2003)."""
    first_distributed = act272_first_month()
    warnings: list[str] = [
        Message(
            "What is left after clause (iii) goes to the Tourism Company: the supplied § "
            "31(B) is cut off after clause iii (%(reading)s).",
            reading=readings.note("remainder-to-tourism-company"),
        )
    ]
    if fy.start_year == first_distributed.year:
        warnings.append(
            Message(
                "FY2003-04: Act 272-2003 is taken to apply from its approval, %(approved)s (the "
                "supplied text has no effective-date clause); transfers of 1/9 run October to "
                "June.",
                approved=date(2003, 9, 9),
            )
        )
    if joined:
        first_label = month_label(first_distributed.year, first_distributed.month)
        warnings.append(
            Message(
                "The tax collected from 2003-09-09 in September 2003 (month 2003-09) joins "
                "%(first_label)s's money: § 31 distributes from the month after the Act's "
                "approval, and its first 1/9 transfer is October's. The collections up to "
                "2003-09-08 go by the IRC 1994 rules as a part-year of FY2003-04; the text "
                "leaves the seam open (%(reading)s).",
                reading=readings.note("seam-of-2003"),
                first_label=first_label,
            )
        )
    return warnings


def _act272_joined_months(
    fy: FiscalYear, joined: Mapping[int, tuple[tuple[int, int], ...]]
) -> list[TraceStep]:
    """Act 272-2003 § 31: each month distributed together with the months whose money it
    carries."""
    return [
        TraceStep(
            Message(
                "%(value)s: distributed together",
                value=month_label(*month_of_fiscal(fy, m)),
            ),
            " + ".join(
                f"{month_label(*month_of_fiscal(fy, pm))} {money_str(from_cents(c))}"
                for pm, c in parts
            ),
            history(f"{_A}.first_collection_month").values[-1].citation,
            f"{_A}.first_collection_month",
        )
        for m, parts in joined.items()
    ]


def _act272_part_year_warning(
    fy: FiscalYear, waterfall: WaterfallResult, schedule: Sequence[int]
) -> Message | None:
    """A year given only up to a month before June: what is carried after that month is not
    what is outstanding when the year ends (the later months may still pay it, and the Bank's
    transfers still to come are not counted)."""
    if not waterfall.periods or waterfall.periods[-1].fiscal_month == 12:
        return None
    last = waterfall.periods[-1].fiscal_month
    carried = dict(zip(waterfall.keys, waterfall.outstanding, strict=True))
    return Message(
        "The months given end with %(last)s, before the end of FY%(label)s: what is carried "
        "after that month (debt service %(debt)s, Convention Bureau %(bureau)s) is not what "
        "is outstanding when the year ends. The later months may still pay it, and the Bank "
        "transfers still to come (%(to_come)s) are not counted in it.",
        last=month_label(*month_of_fiscal(fy, last)),
        label=fy.label,
        debt=Amount.of_cents(carried["authority_debt_service"]),
        bureau=Amount.of_cents(carried["convention_bureau"]),
        to_come=Amount.of_cents(sum(schedule[last:])),
    )


def _act272_outstanding(
    fy: FiscalYear, waterfall: WaterfallResult, floor: ParamValue
) -> list[TraceStep]:
    """§ 31(A) and (B)(iii): what the debt service and the Bureau are still owed when the
    fiscal year's last month has been distributed."""
    if not waterfall.periods or waterfall.periods[-1].fiscal_month != 12:
        return []
    out = dict(zip(waterfall.keys, waterfall.outstanding, strict=True))
    return [
        TraceStep(
            Message(
                "Outstanding at the end of FY%(label)s: %(key)s",
                label=fy.label,
                key=FieldRef(key),
            ),
            Figure(from_cents(out[key])),
            "Act 272-2003 § 31(A)" if key == CARRIED_KEYS[0] else floor.citation,
        )
        for key in CARRIED_KEYS
        if out[key]
    ]
