"""The project's readings of the law: every point where the statutes are silent, cut off or
ambiguous and the project decided how to read them, in its own words.

Each reading has a stable slug (its anchor on the published page ``/readings#<slug>``), a
title, the reading itself and the statute paragraphs it reads, all English msgids translated
where they are shown. A citation names a reading as ``"Project reading: <title>"`` (the English
title, :func:`cite`); a warning names one through the message of :func:`note`. The list is
the one the project publishes: a citation that names a reading must name one of these.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from tid.rules.messages import N_, Message

# How a citation names a reading, in English (its Spanish comes from the catalog).
PREFIX = "Project reading: "
LABEL = N_("Project reading: %(title)s")


@dataclass(frozen=True, slots=True)
class Reading:
    """One reading: ``slug`` (its anchor), ``title``, ``text`` and the ``statutes`` it reads
    (each a citation of a statute's paragraph), all msgids."""

    slug: str
    title: str
    text: str
    statutes: tuple[str, ...]

    @property
    def citation(self) -> str:
        """The reading as a citation names it (English)."""
        return PREFIX + self.title

    def note(self) -> Message:
        """The reading as a message names it, in the reader's language."""
        return Message(LABEL, title=Message(self.title))


_ALL = (
    Reading(
        "saturday-deadlines",
        N_("Saturdays in the deadlines"),
        N_(
            "The supplied text of 1 LPRA § 72 moves a deadline that ends on a Sunday or a "
            "legal holiday, and does not settle Saturdays. The project treats a Saturday like "
            "a Sunday by default: a deadline that would end on one moves to the next working "
            "day. A district setting can turn this off, and every deadline says which way it "
            "was counted. Every deadline of 21 LPRA § 6653 uses the same setting, so one "
            "deadline has one answer wherever it is shown."
        ),
        (N_("1 LPRA § 72"), N_("21 LPRA § 6653(2)"), N_("21 LPRA § 6653(5)")),
    ),
    Reading(
        "general-election-day",
        N_("General election day as a holiday"),
        N_(
            "The project counts Puerto Rico's general election day (the first Tuesday after "
            "the first Monday of November, every fourth year from 2024) as a legal holiday "
            "when it counts a deadline, though the holiday calendar the project uses lacks "
            "it. A deadline it moves says so."
        ),
        (N_("1 LPRA § 72"),),
    ),
    Reading(
        "observed-holidays",
        N_("Observed holidays"),
        N_(
            "When a holiday that falls on a Saturday is observed on the Friday, or one that "
            "falls on a Sunday is observed on the Monday, the project counts the observed day "
            "as a holiday too: the offices are closed that day. A deadline it moves says so."
        ),
        (N_("1 LPRA § 72"),),
    ),
    Reading(
        "week-following-approval",
        N_("The week following approval"),
        N_(
            "The ordinance is published during the week following the mayor's approval. The "
            "project reads that week as the 7 days after the day of approval (approval + 1 to "
            "approval + 7). It is a week, not a period counted to a last day, so its end does "
            "not move for a Sunday or a holiday."
        ),
        (N_("21 LPRA § 6653(7)"),),
    ),
    Reading(
        "admin-cap-per-fiscal-year",
        N_("The administrative cap, per fiscal year"),
        N_(
            "Administrative expenditures may not exceed the statute's share of the impost "
            "revenues collected (the administrative cap, a dated parameter); the statute names "
            "no period. The project measures the cap per fiscal year (July 1 to June 30): the "
            "administrative spending booked in a fiscal year may not exceed that share of the "
            "impost revenue collected in that fiscal year up to that moment. An expenditure "
            "that would break it is refused with the figures."
        ),
        (N_("21 LPRA § 6653(6)"),),
    ),
    Reading(
        "budget-admin-cap-planned",
        N_("The administrative cap, planned in the budget"),
        N_(
            "The statute caps administrative spending at a share of the impost revenues "
            "collected and says nothing of a budget. The project checks a fiscal year's budget "
            "before the board approves it: its administration line may not exceed the cap's "
            "share of the collections the budget expects (the impost billed times the "
            "district's own collection rate of past years, or a rate the association gives "
            "with its reason), and its spending may not exceed the money it expects. The cap "
            "itself is still measured on what is collected, as the year goes."
        ),
        (N_("21 LPRA § 6653(6)"),),
    ),
    Reading(
        "budget-carry-over",
        N_("The carry-over of a closed year"),
        N_(
            "The statute names no carry-over. The project carries a fiscal year into the "
            "next one's budget only once the year is closed (locked after its yearly "
            "statement), and carries the statement's closing balance of the special account: "
            "the year's surplus or deficit on top of what it opened with."
        ),
        (N_("21 LPRA § 6653(6)"),),
    ),
    Reading(
        "roll-yearly-check",
        N_("The roll's yearly check before billing"),
        N_(
            "The statute has the impost billed to each real property of the district by the "
            "ordinance's formula and names the amount expected to be raised; it says nothing "
            "of how the roll is checked. When a fiscal year's roll is imported over a district "
            "that had one the year before, the project lists each change against last year's "
            "roll (a property new or gone, a split or a merge proposed by address or owner, an "
            "assessed value moved more than the district's threshold, 25 percent unless it sets "
            "another, a change of use class, rooms, owner or exemption) with the impost of "
            "both years, and bills the year only once each change is accepted or sent back to "
            "the CRIM with its reason. A property sent back is kept out of the billing or "
            "billed at last year's figures, as the association chooses, until the CRIM's "
            "correction is imported. The association then signs a verified billing statement. "
            "A district may turn the check off; its statement then says the roll was not "
            "checked."
        ),
        (N_("21 LPRA § 6653(3)(b)"), N_("21 LPRA § 6653(3)(d)")),
    ),
    Reading(
        "lien-ranks-in-full",
        N_("Each rank paid in full"),
        N_(
            "The statute ranks the impost lien among the others and says nothing of how the "
            "proceeds of a sale are shared. The project pays the proceeds rank by rank, each "
            "lien in full before the next, never pro rata; what is left after every lien goes "
            "to the owner."
        ),
        (N_("21 LPRA § 6653(8)"),),
    ),
    Reading(
        "same-day-liens",
        N_("Liens of the same day"),
        N_(
            "The statute orders liens only relative to the impost lien. Inside each group "
            "(the liens ranked above it, the impost lien, every other lien) the project ranks "
            "the oldest constitution date first, and liens constituted on the same day in the "
            "order they are listed (the order they were recorded), never by their "
            "identifiers."
        ),
        (N_("21 LPRA § 6653(8)"),),
    ),
    Reading(
        "lien-act-effective-date",
        N_("The day the lien act took effect"),
        N_(
            "Among the liens that rank above the impost lien, the statute names “Any liens "
            "constituted before the effectiveness of this act”. The section's history note "
            "says that Act 171-2009 of December 16, 2009, which amended it, took effect 30 "
            "days after that day. The project reads this act as Act 171-2009 and the day it "
            "took effect as January 15, 2010: a lien constituted before that day ranks above the "
            "impost lien; one constituted on it or later ranks below it, unless another clause "
            "of the section places it above. The day is a dated district setting, the "
            "effective date of the lien act (January 15, 2010 by default), and every ranking names "
            "the day it used."
        ),
        (N_("21 LPRA § 6653(8)(c)"), N_("Act 171-2009 § 6")),
    ),
    Reading(
        "unsecured-charges",
        N_("Charges the lien does not secure"),
        N_(
            "The lien secures only the imposts of the ordinance. The interest, surcharges and "
            "fees on a late impost are owed but not secured by it: the project does not pay "
            "them from the proceeds of a sale, lists them as owed by the owner, and leaves "
            "the whole surplus to the owner; the association may claim them against that "
            "surplus only by a separate action."
        ),
        (N_("21 LPRA § 6653(8)"),),
    ),
    Reading(
        "late-charges-payoff-quotes",
        N_("Late charges and payoff quotes"),
        N_(
            "The statute names no surcharge or interest on a late impost: they are terms of "
            "each district's ordinance, recorded with it (none by default). A payoff quote "
            "good through a day owes every unpaid impost plus the late charges accrued to that "
            "day exactly as the delinquency list of that day figures them. What each day after "
            "it adds is the daily interest on the unpaid impost (the amount of a day to the "
            "cent; the interest is figured on all the days late and rounded to the cent once), "
            "never a one-time charge: the project lists apart, with its day and amount, every "
            "one-time charge that would land in the 30 days after the quote's day (a surcharge "
            "on a due date passing), so a quote good through a day before a surcharge lands "
            "says so."
        ),
        (N_("21 LPRA § 6653(8)"),),
    ),
    Reading(
        "splits-to-the-cent",
        N_("Every split to the cent"),
        N_(
            "The statutes give shares and percentages and say nothing of rounding. The "
            "project computes money exactly and rounds to cents half-up only where an amount "
            "is paid out; every split of a total pays out exactly the total, the cents left "
            "by rounding going by the largest remainders (on a tie, to the one named first)."
        ),
        (N_("21 LPRA § 6653(3)(d)"), N_("Act 272-2003 § 31"), N_("13 LPRA § 31751")),
    ),
    Reading(
        "in-force-from-approval",
        N_("In force from approval"),
        N_(
            "The supplied texts of the 1994 Internal Revenue Code and of Act 272-2003 have no "
            "effective-date clause. The project applies each from its approval: the 1994 "
            "rates to stays from October 31, 1994, those of Act 272-2003 to stays from "
            "September 9, 2003. A result for a stay in the first fiscal year of either says so."
        ),
        (N_("IRC 1994 § 2051(a)"), N_("Act 272-2003 § 24")),
    ),
    Reading(
        "five-dollar-test-nightly-rate",
        N_("The $5.00 test reads the nightly rate"),
        N_(
            "A lodging is taxed only when its daily rate exceeds five dollars. The project "
            "applies that test to the nightly room rate alone; the additional charges for the "
            "stay (fees, penalties, paid-but-unused rooms) join the base only once the stay "
            "is taxed. The motel test of Act 272-2003 reads the same way."
        ),
        (N_("IRC 1994 § 2051(a)"), N_("Act 272-2003 § 24")),
    ),
    Reading(
        "additional-charges-in-base",
        N_("Additional charges under the 1994 Code"),
        N_(
            "The supplied text of the 1994 Code does not define the room occupancy rate. The "
            "project takes the definition of Act 272-2003: the base includes paid-but-unused "
            "rooms, room penalties, resort and other fees charged for the stay, under either "
            "regime."
        ),
        (N_("IRC 1994 § 2051(a)"), N_("Act 272-2003 § 2(8)")),
    ),
    Reading(
        "greatest-of-the-figures",
        N_("The base of a complimentary or grouped rate"),
        N_(
            "For a complimentary casino room, or a rate grouped with meals without a "
            "trustworthy breakdown, the Act lets the Tourism Company use the greatest of the "
            "average daily rate, the room cost and the industry cost. The project takes as "
            "the nightly base the greatest of those figures that are given (the rate charged "
            "is not among them), times the nights."
        ),
        (N_("Act 272-2003 § 24(C)"), N_("Act 272-2003 § 24(D)")),
    ),
    Reading(
        "unnamed-recipients",
        N_("Recipients the 1994 text does not name"),
        N_(
            "The supplied text of the 1994 Code names no recipient for the last sixth of the "
            "first six points, nor for the points above 7 (9 with a casino) before fiscal year "
            "1997-98. The project computes those years anyway and reports those amounts apart, "
            "as recipients not named in the supplied text."
        ),
        (N_("IRC 1994 § 2051 ¶ (5)"),),
    ),
    Reading(
        "recreational-fund-top-up",
        N_("The Recreational Development Fund's $3,000,000"),
        N_(
            "When the 70 percent share of five sixths of the first six points is under "
            "$3,000,000, the project moves from the General Fund's 30 percent share to the "
            "Recreational Development Fund what brings that fund's receipts up to $3,000,000, "
            "and at most the whole 30 percent share."
        ),
        (N_("IRC 1994 § 2051 ¶ (5)"),),
    ),
    Reading(
        "seam-of-2003",
        N_("The seam of 2003"),
        N_(
            "The texts leave open how fiscal year 2003-04 passes from the 1994 rules to Act "
            "272-2003. The project distributes the collections up to September 8, 2003 by the "
            "1994 rules as a part-year (without the Special Accounts), and the tax collected "
            "from September 9, 2003 as month 2003-09 of the Act, joined to October's "
            "money (the first of the nine transfers is October's). Nothing of 2003 is refused "
            "for falling between the two."
        ),
        (N_("Act 272-2003, heading"), N_("Act 272-2003 § 31(A)")),
    ),
    Reading(
        "act-272-distribution-year",
        N_("The fiscal year § 31 distributes from"),
        N_(
            "Section 31 opens “For the fiscal year and subsequent fiscal years”, with no year "
            "where one is expected: the supplied text leaves it blank. The project distributes "
            "under it from the fiscal year of the Act's approval, 2003-04 (from September 9, 2003)."
        ),
        (N_("Act 272-2003 § 31"),),
    ),
    Reading(
        "remainder-to-tourism-company",
        N_("What is left after clause (iii)"),
        N_(
            "The supplied § 31(B) is cut off after clause (iii). The project gives what is "
            "left of each month after clauses (i) to (iii) to the Tourism Company, and reports "
            "it as the remainder."
        ),
        (N_("Act 272-2003 § 31(B)"),),
    ),
    Reading(
        "bureau-floor-year",
        N_("The year of the Convention Bureau's floor"),
        N_(
            "The Convention Bureau's floor of $4,500,000 a year applies from a fiscal year the "
            "supplied text leaves blank. The project keeps the floor off unless that fiscal "
            "year is given (a parameter), and every result says whether it applied."
        ),
        (N_("Act 272-2003 § 31(B)(iii)"),),
    ),
    Reading(
        "bureau-floor-to-date",
        N_("The Convention Bureau's floor, to date"),
        N_(
            "With the floor on, the project counts it to date inside the fiscal year: after "
            "month m the Bureau is owed the greater of 9 percent of the year's tax to date "
            "and $375,000 times m, and each month pays what is owed to date less what was "
            "already paid, as far as the month's money reaches. Early months whose 9 percent "
            "is larger count toward the floor of later months."
        ),
        (N_("Act 272-2003 § 31(B)(iii)"),),
    ),
    Reading(
        "convention-center-reserve-years",
        N_("The years of the Convention Center reserve"),
        N_(
            "The 5 percent is available for the Convention Center's operating deficit “As of "
            "the year in which the Authority certifies to the Department of the Treasury and to "
            "the Company, the commencement of the operation of the Convention Center, and "
            "during the ten (10) subsequent years”. The project reads that as eleven fiscal "
            "years in all: the fiscal year of the certified opening and the ten after it, the 5 "
            "percent held in a reserve. Inside them, without the year's deficit given, the 5 "
            "percent stays in the reserve and the result says so."
        ),
        (N_("Act 272-2003 § 31(B)(ii)"),),
    ),
    Reading(
        "missing-months",
        N_("A month not given"),
        N_(
            "The project takes a month of the fiscal year that is not given as collecting "
            "nothing, and it still counts: what fell due in it (the Bank's transfers, the "
            "Convention Bureau's floor, the excise monthly payments) is owed by the following "
            "months of the fiscal year. One rule for a missing month, for every distribution "
            "month by month."
        ),
        (N_("Act 272-2003 § 31"), N_("13 LPRA § 31751")),
    ),
    Reading(
        "excise-from-2011",
        N_("The excise allocations from 2011"),
        N_(
            "The section's history note makes it retroactive to January 1, 2011. The project "
            "applies it from that day: fiscal year 2010-11 is computed from January 2011, its "
            "monthly payments counted from January, and earlier months are refused."
        ),
        (N_("13 LPRA § 31751"),),
    ),
    Reading(
        "excise-made-up-later",
        N_("A short month made up later"),
        N_(
            "The project makes up a month short of a payment from the later months of the same "
            "fiscal year only: money already paid to lower priorities in earlier months is not "
            "taken back. After month m a recipient is owed to date the lesser of its annual cap "
            "and its monthly cap times m, paid as far as the month's money reaches, in priority "
            "order."
        ),
        (N_("13 LPRA § 31751(a)"),),
    ),
    Reading(
        "cigarette-reimbursements",
        N_("Cigarette tax less reimbursements"),
        N_(
            "The cigarette tax the section allocates is the month's collections less the "
            "amounts reimbursed under 13 LPRA § 31668. The project takes those amounts as "
            "given for each month (none when not given), and refuses more than the month "
            "collected."
        ),
        (N_("13 LPRA § 31751(a)"),),
    ),
    Reading(
        "subject-to-hta-deposit",
        N_("Subject to the Highways Authority's deposit"),
        N_(
            "The Bus Authority's and the Integrated Transportation Authority's shares are "
            "“contingent on the deposit of twenty million dollars” to the Highways and "
            "Transportation Authority. The project reads that as priority month by month; a "
            "result that pays them before the Highways Authority has its $20,000,000 for the "
            "year names the stricter reading, under which they would receive nothing until "
            "then."
        ),
        (N_("13 LPRA § 31751(a)(4)"),),
    ),
    Reading(
        "no-municipality-below-zero",
        N_("No municipality below zero"),
        N_(
            "The hold-harmless top-ups are taken from the other municipalities inversely "
            "proportional to their FY2007-08 share. The text does not say what happens when a "
            "municipality's part would take it below zero: the project sets it to zero and "
            "spreads the rest again over the others with the same weights."
        ),
        (N_("Municipal Equalization Fund"),),
    ),
    Reading(
        "reform-periods",
        N_("The periods of a reform"),
        N_(
            "How a reform's changes to the statutes' figures apply is not in the statutes; the "
            "project reads it so. A reform is a set of changes to dated parameters, each from a "
            "day; under the law "
            "and under the reform the same calculator runs, and the differences are reform "
            "minus law. Which value a period uses: a calculator that works month by month "
            "(Act 272 distribution, excise allocations) uses for each month the values in "
            "force on that month's first day, so a change dated inside a month applies from "
            "the next month; a calculator that works by fiscal year (the 1994 distribution, "
            "the Equalization Fund) uses the values in force on the year's first day, so a "
            "change dated inside the year applies from the next year; a stay uses the values "
            "in force on its date. Whenever a change's day falls inside a period that does "
            "not use it, the result warns, naming the change, its day and the period. A "
            "change that would make a calculator impossible (a share group that no longer "
            "adds up to the whole, a month number outside 1–12, a count of zero, a regime or "
            "choice outside the years the law gives it, a day of the month that not every "
            "month has) is refused before any computation, naming the change's value and the "
            "values allowed. A reform never crashes a calculator."
        ),
        (
            N_("Act 272-2003 § 31"),
            N_("13 LPRA § 31751(a)"),
            N_("IRC 1994 § 2051 ¶ (5)"),
            N_("Municipal Equalization Fund"),
        ),
    ),
    Reading(
        "statement-pdf-detail",
        N_("The yearly statement's detail"),
        N_(
            "The statute asks for a yearly statement of the special account and names no "
            "form. The project's statement gives the year's figures, the journal's totals by "
            "month and by account and the receivables by age; when the year's journal entries "
            "and the bills owed at its end together are at most 100, its PDF also lists them "
            "one by one. Past that, the entry-by-entry journal and the bill-by-bill "
            "receivables are the statement's CSV files, made from the same journal, and the "
            "PDF gives their counts and totals so that an auditor ties each file to it: a "
            "printed list of tens of thousands of entries helps no one read the account. "
            "The delinquency list's PDF does the same past 100 delinquent bills: their "
            "totals by days late and by fiscal year, the list in its CSV file."
        ),
        (N_("21 LPRA § 6653(6)"),),
    ),
    Reading(
        "corrected-opening-position",
        N_("A corrected opening position"),
        N_(
            "The statute says nothing of a district's books before it. The project has a "
            "district that moved in with a wrong opening position reverse it as one: each "
            "opening entry is reversed in the special account's journal on the cut-over day, "
            "and both stay on record. The corrected position then stands where the wrong one "
            "stood, beneath any business booked since, which it does not touch: its cut-over "
            "day can be no later than the first entry booked after the first load, and it "
            "cannot bring a bill of a property and fiscal year already billed here. The "
            "reversal is refused while a payment or another entry rests on the position's "
            "bills (reverse it first), once a notice was issued for one of them (a notice of "
            "record is never withdrawn), or while its cut-over day is in a closed fiscal year."
        ),
        (N_("21 LPRA § 6653(6)"),),
    ),
)

READINGS: dict[str, Reading] = {reading.slug: reading for reading in _ALL}
_BY_CITATION = {reading.citation: reading for reading in _ALL}
# The citation of any reading, longest titles first (one title may begin another).
_CITED = re.compile(
    "|".join(re.escape(r.citation) for r in sorted(_ALL, key=lambda r: -len(r.title)))
)


def reading(slug: str) -> Reading:
    """The reading of ``slug`` (a KeyError for one the project does not publish)."""
    return READINGS[slug]


def cite(slug: str) -> str:
    """The citation of the reading ``slug``, as a trace step or a parameter carries it."""
    return READINGS[slug].citation


def note(slug: str) -> Message:
    """The reading ``slug`` named in a warning (``… (%(reading)s).``)."""
    return READINGS[slug].note()


def named(part: str) -> Reading | None:
    """The reading a part of a citation (``"Project reading: <title>"``) names, if any."""
    return _BY_CITATION.get(part.strip())


def cited_in(texts: Iterable[str]) -> list[Reading]:
    """The readings the English ``texts`` (citations, warnings) name, in order of first use."""
    found: list[Reading] = []
    for text in texts:
        for match in _CITED.finditer(str(text)):
            cited = _BY_CITATION[match.group(0)]
            if cited not in found:
                found.append(cited)
    return found
