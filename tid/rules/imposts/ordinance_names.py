"""An ordinance's formula against what it may name (21 LPRA § 6653(3)(d)): every name is a
column of the district's roll or one of the ordinance's parameters, and every parameter the
ordinance gives is one the formula uses — checked when the formula is recorded or corrected,
not first when a fiscal year is billed."""

from __future__ import annotations

from collections.abc import Collection

from tid.rules.errors import InputError
from tid.rules.imposts.language import compile_formula
from tid.rules.imposts.tree import Formula, first_use, written_name
from tid.rules.messages import Message, joined
from tid.rules.vocab.formula_names import formula_name


def check_formula_names(
    text: str,
    *,
    columns: Collection[str],
    parameters: Collection[str],
    always: Collection[str] = (),
) -> Formula:
    """``text`` compiled, refused (naming the field) when it names something that is neither
    one of the roll's ``columns`` nor a parameter (``parameters`` and the ``always`` known
    ones, like the ordinance's expected amount), or when one of ``parameters`` is unused."""
    known = [*parameters, *always]
    formula = compile_formula(text, parameters=known)
    for name in formula.attributes:
        if name not in columns:
            raise InputError(
                "formula",
                Message(
                    "The formula names %(name)s, which is neither a column of the roll nor "
                    "a parameter of the ordinance. The roll's columns: %(columns)s.",
                    name=written_name(first_use(formula.tree, name), name),
                    # Each column as a formula names it in the reader's language.
                    columns=joined([formula_name(c) for c in sorted(columns)], ", "),
                ),
            )
    for name in parameters:
        if name not in formula.parameters:
            raise InputError(
                f"parameters.{name}",
                Message("The formula does not use the parameter %(name)s.", name=name),
            )
    return formula
