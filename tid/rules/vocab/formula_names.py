"""The names an impost formula reads (tid/rules/imposts/), as its explanation says them: the
roll's columns a formula may use (``variable`` in :mod:`.roll_columns`) and the ordinance's
figures; any other name is a roll file's own attribute and is said as written.
"""

from __future__ import annotations

from tid.rules.messages import N_, Message
from tid.rules.vocab.roll_columns import ROLL_COLUMNS
from tid.rules.vocab.terms import Term, Vocabulary

# The ordinance's figures a formula may read beside the roll's columns.
FORMULA_FIGURES: Vocabulary[Term] = Vocabulary(
    "formula figures",
    (
        Term("budget", N_("budget")),
        Term("expected_amount", N_("expected amount")),
    ),
)


def formula_name_label(name: str) -> str | None:
    """A name of the formula as its explanation says it (a message), or None for a name
    the vocabulary does not know."""
    column = ROLL_COLUMNS.get(name)
    if column is not None and column.variable is not None:
        return Message(column.variable)
    figure = FORMULA_FIGURES.get(name)
    return Message(figure.label) if figure else None
