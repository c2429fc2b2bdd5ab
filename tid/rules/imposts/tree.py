"""The typed tree of a compiled formula: its nodes (numbers, text, names, operations,
comparisons, conditions, calls), the :class:`Formula` that holds the tree with the names it
uses, and the walks over it. A position in the text is written ``column 14`` (or ``line 2,
column 3``) in every error.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass
from decimal import Decimal

from tid.rules.errors import InputError
from tid.rules.messages import Message

NUM, TEXT, BOOL, ANY = "number", "text", "condition", "any"


@dataclass(frozen=True, eq=False)
class Node:
    start: int  # offset of the node's first character in the formula
    end: int


@dataclass(frozen=True, eq=False)
class Num(Node):
    value: Decimal


@dataclass(frozen=True, eq=False)
class Text(Node):
    value: str


@dataclass(frozen=True, eq=False)
class Name(Node):
    name: str  # the code the name reads (``assessed_value`` for ``valor_tasado``)
    written: str = ""  # the name as the formula writes it, when not its code


def written_name(node: Node, name: str) -> str:
    """``name`` as the formula writes it at ``node`` (its Spanish name, if so written)."""
    return (node.written or name) if isinstance(node, Name) else name


@dataclass(frozen=True, eq=False)
class Unary(Node):
    op: str
    operand: Node


@dataclass(frozen=True, eq=False)
class Operation:
    """One step of a chain: the operator, its operand, and where the operator stands."""

    op: str
    operand: Node
    op_at: int  # offset of the operator, for errors such as a division by zero


@dataclass(frozen=True, eq=False)
class Arith(Node):
    """Operations of one precedence read left to right: ``a + b - c`` or ``a * b / c``.

    A chain is one node however long it is, so a sum of a thousand terms nests one level
    deep, and every walk over the tree stays shallow.
    """

    first: Node
    rest: tuple[Operation, ...]

    @functools.cached_property
    def operand_nodes(self) -> tuple[Node, ...]:
        return (self.first, *(o.operand for o in self.rest))


@dataclass(frozen=True, eq=False)
class Compare(Node):
    op: str
    left: Node
    right: Node


@dataclass(frozen=True, eq=False)
class Logic(Node):
    op: str
    left: Node
    right: Node


@dataclass(frozen=True, eq=False)
class Not(Node):
    operand: Node


@dataclass(frozen=True, eq=False)
class Call(Node):
    func: str
    args: tuple[Node, ...]


FUNCTIONS = ("max", "min", "round", "if", "sum", "count")
AGGREGATES = ("sum", "count")
COMPARE_OPS = {
    "==": operator.eq,
    "=": operator.eq,
    "!=": operator.ne,
    "<>": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def position_of(text: str, offset: int) -> str:
    """``column 14`` (1-based), or ``line 2, column 3`` in a formula of several lines: a
    message, said in the reader's language."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    if line == 1:
        return Message("column %(column)s", column=column)
    return Message("line %(line)s, column %(column)s", line=line, column=column)


def formula_error(text: str, offset: int, message: str, hint: str = "") -> InputError:
    """What is wrong with the formula and where (``message`` and ``hint`` are messages:
    the whole error is said in the reader's language, its English as before)."""
    where = position_of(text, offset)
    if hint:
        return InputError(
            "formula",
            Message(
                "%(problem)s at %(position)s; %(hint)s", problem=message, position=where, hint=hint
            ),
        )
    return InputError(
        "formula", Message("%(problem)s at %(position)s", problem=message, position=where)
    )


@dataclass(frozen=True)
class Formula:
    """A compiled impost formula: its text, its typed tree and the names it uses."""

    text: str
    tree: Node
    names: tuple[str, ...]  # every name, in order of first use
    parameters: tuple[str, ...]  # the names known to be parameters when compiled
    attributes: tuple[str, ...]  # the other names: attributes of each property
    aggregates: tuple[Call, ...]
    size: int = 0  # the number of nodes of the tree: the work of evaluating it once

    def position(self, node: Node) -> str:
        return position_of(self.text, node.start)

    def source(self, node: Node) -> str:
        return self.text[node.start : node.end]


def tree_size(node: Node) -> int:
    count, stack = 0, [node]
    while stack:
        count += 1
        stack.extend(child_nodes(stack.pop()))
    return count


def child_nodes(node: Node) -> tuple[Node, ...]:
    if isinstance(node, Unary | Not):
        return (node.operand,)
    if isinstance(node, Arith):
        return node.operand_nodes
    if isinstance(node, Compare | Logic):
        return (node.left, node.right)
    if isinstance(node, Call):
        return node.args
    return ()


def collect_names(node: Node, names: list[str]) -> None:
    if isinstance(node, Name) and node.name not in names:
        names.append(node.name)
    for child in child_nodes(node):
        collect_names(child, names)


def first_use(node: Node, name: str) -> Node:
    """The first occurrence of ``name`` (in reading order), or the root if none."""
    stack = [node]
    found: list[Node] = []
    while stack:
        current = stack.pop()
        if isinstance(current, Name) and current.name == name:
            found.append(current)
        stack.extend(child_nodes(current))
    return min(found, key=lambda n: n.start) if found else node
