"""The municipal legislature's petition tracker — 21 LPRA § 6653(1)–(5), (7).

A petition moves through explicit states (21 LPRA § 6653(1)–(3)):

    received → under study → ordinance issued | denied → with the mayor → approved | vetoed
    → published

Every transition checks its preconditions, records its date, and leaves an audit event. The
clocks that run in each state (the legislature's 90 days, the mayor's 30 days, the
publication week, the association's 30 days to notify owners) come from
:mod:`tid.rules.calendar`; nothing here counts days itself. The package:

- :mod:`.states`: the states, the transitions between them, the factors of § 6653(1);
- :mod:`.parsing`: each field of the forms checked; :mod:`.errors`: the errors they raise;
- :mod:`.study`: a petition recorded, studied and its factors found;
- :mod:`.ordinance`: the ordinance issued or the petition denied, the mayor's decision,
  the publication and the copies sent;
- :mod:`.corrections`: a recorded date or text corrected with a reason;
- :mod:`.deadlines`: the clocks of a petition; :mod:`.reads`: reads for the pages;
- :mod:`.calendar_feed`: the iCal feed of the deadlines and its tokens;
- the legislature's file: :mod:`.attachments` (documents in versions; ``attach_generated``
  files a PDF the app made), :mod:`.file_search` (the search and its index), :mod:`.proofs`
  (the publication's proof, the CRIM transmittal, the ordinance's required content).

The names other layers use are re-exported here (``svc.record_petition``); code of the
package imports from the submodule that holds each.
"""

from __future__ import annotations

from tid.services.petitions.calendar_feed import (
    FeedEvent,
    feed_event,
    has_calendar_token,
    ical_document,
    issue_calendar_token,
    revoke_calendar_tokens,
    uid_domain,
    user_calendar,
    user_for_calendar_token,
    visible_municipalities,
)
from tid.services.petitions.corrections import (
    CORRECTABLE,
    correct_petition,
    correctable_fields,
    recorded_value,
    runs_to_rebill,
)
from tid.services.petitions.deadlines import CLOCK_LABELS, SOON_DAYS, Clock, clocks, running_clock
from tid.services.petitions.errors import PetitionError, PetitionFieldsError
from tid.services.petitions.ordinance import (
    deny,
    issue_ordinance,
    mayor_approves,
    mayor_vetoes,
    ordinance_of,
    publish,
    record_association_receipt,
    record_crim_copy,
    send_to_mayor,
)
from tid.services.petitions.parsing import parameters_text
from tid.services.petitions.reads import (
    DashboardRow,
    dashboard,
    due_soon,
    history,
    municipality_names,
    petition,
    visible_dashboard,
)
from tid.services.petitions.states import FACTORS, STATE_LABELS, TRANSITIONS, state_tone
from tid.services.petitions.study import (
    findings_of,
    record_finding,
    record_petition,
    start_study,
    unfavourable_factors,
)

__all__ = [
    "CLOCK_LABELS",
    "CORRECTABLE",
    "FACTORS",
    "SOON_DAYS",
    "STATE_LABELS",
    "TRANSITIONS",
    "Clock",
    "DashboardRow",
    "FeedEvent",
    "PetitionError",
    "PetitionFieldsError",
    "clocks",
    "correct_petition",
    "correctable_fields",
    "dashboard",
    "deny",
    "due_soon",
    "feed_event",
    "findings_of",
    "has_calendar_token",
    "history",
    "ical_document",
    "issue_calendar_token",
    "issue_ordinance",
    "mayor_approves",
    "mayor_vetoes",
    "municipality_names",
    "ordinance_of",
    "parameters_text",
    "petition",
    "publish",
    "record_association_receipt",
    "record_crim_copy",
    "record_finding",
    "record_petition",
    "recorded_value",
    "revoke_calendar_tokens",
    "running_clock",
    "runs_to_rebill",
    "send_to_mayor",
    "start_study",
    "state_tone",
    "uid_domain",
    "unfavourable_factors",
    "user_calendar",
    "user_for_calendar_token",
    "visible_dashboard",
    "visible_municipalities",
]
