"""The impost formula of the ordinance — 21 LPRA § 6653(3)(d).

The ordinance states "the formula to calculate the amount to be paid annually by each real
property within the district". This package gives that formula a small, safe language over
the properties' attributes and the ordinance's named parameters:

    0.0125 * assessed_value + 1.50 * rooms
    if(kind == "hotel", 0.02, 0.01) * assessed_value
    max(50.00, round(0.01 * assessed_value, 2))
    budget * assessed_value / sum(assessed_value)

- :mod:`.language`: the grammar and ``compile_formula``, which parses the text and checks it
  (names, types, depth, size) into a :class:`.tree.Formula`;
- :mod:`.tree`: the formula's typed tree;
- :mod:`.compiler`: the tree turned into closures for one set of parameters;
- :mod:`.evaluation`: ``evaluate``, each property's amount in cents;
- :mod:`.apportionment`: a formula that apportions a budget, split to the cent;
- :mod:`.explanations`: the words of "how it was computed";
- :mod:`.document`: the docs/calculators.md ``impost`` document.

The names other layers use are re-exported here (``from tid.rules.imposts import evaluate``;
the calculators' registry names ``tid.rules.imposts:impost_document``); code of the package
imports from the submodule that holds each.
"""

from __future__ import annotations

from tid.rules.imposts.apportionment import apportioned_attribute
from tid.rules.imposts.compiler import Value
from tid.rules.imposts.document import impost_document
from tid.rules.imposts.evaluation import PropertyImpost, evaluate
from tid.rules.imposts.language import MAX_DEPTH, MAX_FORMULA_LENGTH, compile_formula
from tid.rules.imposts.ordinance_names import check_formula_names
from tid.rules.imposts.tree import NUM, Node

__all__ = [
    "MAX_DEPTH",
    "MAX_FORMULA_LENGTH",
    "NUM",
    "Node",
    "PropertyImpost",
    "Value",
    "apportioned_attribute",
    "check_formula_names",
    "compile_formula",
    "evaluate",
    "impost_document",
]
