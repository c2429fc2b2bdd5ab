"""The vocabulary of codes: one record per code the database, the files and the rules keep,
with its label (the English msgid; the Spanish comes from the catalogs where it is shown), its
order (its place in its vocabulary) and its flags. Pages, PDFs, CSVs, forms and the
explanations read the labels here:

- :mod:`.lien_kinds`: the kinds of lien and how § 6653(8) ranks each;
- :mod:`.lodging_types`: the room tax's lodging types and exemptions;
- :mod:`.journal_terms`: the journal's kinds of entry (``reversible``) and accounts;
- :mod:`.roll_columns`: the property roll's columns, their header names, type and limits;
- :mod:`.formula_names`: the names an impost formula reads, as its explanation says them and
  as a formula names them in English or in Spanish;
- :mod:`.audit_terms`: the audit trail's actions, records and fields.
"""

from __future__ import annotations

from tid.rules.vocab.audit_terms import (
    AUDIT_ACTIONS,
    AUDIT_ACTORS,
    AUDIT_CODES,
    AUDIT_FIELDS,
    AUDIT_HIDDEN_FIELDS,
    AUDIT_RECORDS,
)
from tid.rules.vocab.formula_names import (
    FORMULA_FIGURES,
    formula_code,
    formula_name,
    formula_name_label,
)
from tid.rules.vocab.journal_terms import ACCOUNTS, ENTRY_KINDS, EntryKind, reversible_kinds
from tid.rules.vocab.lien_kinds import IMPOST_KIND, LIEN_KINDS, LienKind, recorded_kinds
from tid.rules.vocab.lodging_types import (
    EXEMPTIONS,
    LODGING_TYPES,
    Exemption,
    LodgingType,
    lodging_label,
)
from tid.rules.vocab.roll_columns import ROLL_COLUMNS, RollColumn
from tid.rules.vocab.terms import Term, Vocabulary

__all__ = [
    "ACCOUNTS",
    "AUDIT_ACTIONS",
    "AUDIT_ACTORS",
    "AUDIT_CODES",
    "AUDIT_FIELDS",
    "AUDIT_HIDDEN_FIELDS",
    "AUDIT_RECORDS",
    "ENTRY_KINDS",
    "EXEMPTIONS",
    "FORMULA_FIGURES",
    "IMPOST_KIND",
    "LIEN_KINDS",
    "LODGING_TYPES",
    "ROLL_COLUMNS",
    "EntryKind",
    "Exemption",
    "LienKind",
    "LodgingType",
    "RollColumn",
    "Term",
    "Vocabulary",
    "formula_code",
    "formula_name",
    "formula_name_label",
    "lodging_label",
    "recorded_kinds",
    "reversible_kinds",
]
