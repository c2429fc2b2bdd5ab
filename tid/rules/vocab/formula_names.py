"""The names an impost formula reads (tid/rules/imposts/): the roll's columns a formula may
use (``variable`` in :mod:`.roll_columns`) and the ordinance's figures, each as its
explanation says it and as a formula names it in English (its code) or in Spanish
(``valor_tasado`` for ``assessed_value``, as the roll's Spanish headers); any other name is a
roll file's own attribute and is said as written.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from tid.rules.messages import N_, Message, Variants
from tid.rules.vocab.roll_columns import ROLL_COLUMNS
from tid.rules.vocab.terms import Term, Vocabulary


@dataclass(frozen=True)
class FormulaFigure(Term):
    formula_name_es: str


# The ordinance's figures a formula may read beside the roll's columns.
FORMULA_FIGURES: Vocabulary[FormulaFigure] = Vocabulary(
    "formula figures",
    (
        FormulaFigure("budget", N_("budget"), "presupuesto"),
        FormulaFigure("expected_amount", N_("expected amount"), "cantidad_esperada"),
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


@functools.cache
def _spanish_names() -> dict[str, str]:
    """Code → its name in a Spanish formula."""
    names = {c.code: c.formula_name_es for c in ROLL_COLUMNS if c.formula_name_es}
    names.update({f.code: f.formula_name_es for f in FORMULA_FIGURES})
    return names


@functools.cache
def _codes() -> dict[str, str]:
    """A Spanish name of a formula (lower case) → the code it stands for."""
    return {spanish: code for code, spanish in _spanish_names().items()}


def formula_code(written: str) -> str:
    """The code a formula's name stands for: ``assessed_value`` for ``valor_tasado`` (any
    case); a name that is no Spanish name is its own code."""
    return _codes().get(written, written)


def formula_name(code: str) -> str:
    """A code as a formula writes it in the reader's language (a
    :class:`~tid.rules.messages.Variants`: ``valor_tasado`` in Spanish), or the code itself."""
    spanish = _spanish_names().get(code)
    return Variants(code, es=spanish) if spanish else code
