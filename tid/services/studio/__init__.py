"""The formula studio (21 LPRA § 6653(3)(b), (d)): for a petition under study, proposed
formulas tried on the district's roll, or on a roll file uploaded for the study, before the
ordinance is voted; nothing is billed or imported.

- :mod:`.sources`: the roll as the billing run reads it, or a file as the roll import
  checks it;
- :mod:`.analysis`: a variant's figures (total against the expected amount and what would
  make them meet, by class and value band, median and largest payers) and a variant against
  another (who pays more or less, by how much and why);
- :mod:`.trials`: the studio's form read and every variant tried;
- :mod:`.saved`: a study saved with its petition, reopened and set beside the ordinance
  voted;
- :mod:`.reach`: who may use a petition's studio (the district's association too) and
  open its saved studies.
"""

from __future__ import annotations

from tid.services.studio.analysis import (
    BANDS,
    Change,
    Comparison,
    Evaluated,
    Share,
    StudyRoll,
    Summary,
    Variant,
    band_key,
    compare,
    evaluate_variant,
    explanation,
    summarize,
)
from tid.services.studio.reach import (
    concerned_districts,
    may_open_study,
    may_study,
    petitions_about,
    petitions_to_study,
    studies_for,
)
from tid.services.studio.saved import (
    form_values,
    reopen,
    report_bytes,
    save_study,
    saved_study,
    studies_of,
    study_input,
)
from tid.services.studio.sources import district_roll, file_roll
from tid.services.studio.trials import (
    FILE,
    IN_FORCE,
    MAX_VARIANTS,
    Meet,
    Outcome,
    StudyInput,
    formula_names,
    in_force,
    read_study,
    roll_choices,
    too_large,
    try_study,
)

__all__ = [
    "BANDS",
    "FILE",
    "IN_FORCE",
    "MAX_VARIANTS",
    "Change",
    "Comparison",
    "Evaluated",
    "Meet",
    "Outcome",
    "Share",
    "StudyInput",
    "StudyRoll",
    "Summary",
    "Variant",
    "band_key",
    "compare",
    "concerned_districts",
    "district_roll",
    "evaluate_variant",
    "explanation",
    "file_roll",
    "form_values",
    "formula_names",
    "in_force",
    "may_open_study",
    "may_study",
    "petitions_about",
    "petitions_to_study",
    "read_study",
    "reopen",
    "report_bytes",
    "roll_choices",
    "save_study",
    "saved_study",
    "studies_for",
    "studies_of",
    "study_input",
    "summarize",
    "too_large",
    "try_study",
]
