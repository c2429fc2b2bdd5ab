"""Distribution of the room occupancy tax collections (Act 272-2003 § 31; IRC 1994 § 2051 ¶ (5)).

- Until 2003-09-08: IRC 1994 § 2051, ¶ (5) ff. (``room-tax-irc1994-s2051-es.txt``), per fiscal
  year up to FY2002-03: the tax is cut in percentage points of each lodging's taxed base; the
  first 6 points are split 5/6 (30 % General Fund, 70 % Bond Redemption Fund up to the
  Secretary's amount, the rest Recreational Development Fund, topped up to $3,000,000 from the
  General Fund's 30 %) and 1/6 (recipient not named in the supplied text).
- From 2003-09-09: Act 272-2003 § 31 (``act-272-2003-room-occupancy-tax.txt``), month by month
  from October 2003: the Bank's certified amount first (1/10 July–April; 1/9 October–June in
  FY2003-04), then 2 %, 5 % and 9 % of the month's total tax, then the rest.

One module per regime: :mod:`.irc1994` and :mod:`.act272`; :mod:`.calculator_document`
reads the calculator's input for either; :mod:`.trace_figures` shows their exact shares.
"""

from __future__ import annotations

from tid.rules.distribution.act272 import (
    ACT272_KEYS,
    CARRIED_KEYS,
    REMAINDER_LABEL,
    RESERVE_KEY,
    RESERVE_LABEL,
    Act272Result,
    ConventionCenterReserve,
    act272_first_collection_month,
    act272_first_month,
    act272_recipients,
    distribute_act272,
    reserve_years,
    reserve_years_said,
)
from tid.rules.distribution.calculator_document import distribution_document
from tid.rules.distribution.irc1994 import (
    CASINO_TYPES,
    IRC1994_KEYS,
    IRC1994_TYPES,
    UNNAMED_ABOVE,
    UNNAMED_ABOVE_LABEL,
    UNNAMED_LABEL,
    UNNAMED_WARNING,
    Irc1994Result,
    distribute_irc1994,
    irc1994_first_day,
)

__all__ = [
    "ACT272_KEYS",
    "CARRIED_KEYS",
    "CASINO_TYPES",
    "IRC1994_KEYS",
    "IRC1994_TYPES",
    "REMAINDER_LABEL",
    "RESERVE_KEY",
    "RESERVE_LABEL",
    "UNNAMED_ABOVE",
    "UNNAMED_ABOVE_LABEL",
    "UNNAMED_LABEL",
    "UNNAMED_WARNING",
    "Act272Result",
    "ConventionCenterReserve",
    "Irc1994Result",
    "act272_first_collection_month",
    "act272_first_month",
    "act272_recipients",
    "distribute_act272",
    "distribute_irc1994",
    "distribution_document",
    "irc1994_first_day",
    "reserve_years",
    "reserve_years_said",
]
