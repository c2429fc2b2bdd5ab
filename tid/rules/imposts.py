"""The impost formula of the ordinance — 21 LPRA § 6653(3)(d) (RULES.md § 1.3).

The ordinance states "the formula to calculate the amount to be paid annually by each real
property within the district". This module gives that formula a small, safe language over
the properties' attributes and the ordinance's named parameters:

    0.0125 * assessed_value + 1.50 * rooms
    if(kind == "hotel", 0.02, 0.01) * assessed_value
    max(50.00, round(0.01 * assessed_value, 2))
    budget * assessed_value / sum(assessed_value)

Decimal literals, ``+ - * /``, unary minus, parentheses, comparisons (``== != < <= > >=``),
``and``/``or``/``not``, text in quotes for comparisons, the functions ``max``, ``min``,
``round(x, n)`` (half-up), ``if(condition, a, b)``, and the aggregates over every property
``sum(expression)`` and ``count()`` / ``count(condition)``. Nothing else: no attribute access,
no imports, no loops, no power; the length and the nesting depth of a formula are bounded.

The text is parsed with ``lark`` (a maintained LALR(1) parser generator, already a dependency
of the project): it gives exact column positions for every error, runs in linear time with no
recursion on the input, and nothing is ever handed to ``eval``. The parse tree is turned once
into a small typed tree (:class:`Formula`); evaluation builds a tree of closures from it and
runs that over the properties, so a formula is never re-parsed or re-walked per property.

Amounts are rounded to cents half-up. A formula of the shape ``X * attr / sum(attr)`` (``X``
the same for every property, e.g. a budget) apportions ``X``: its shares are rounded by the
largest-remainder method so that they add up to ``X`` to the cent (RULES.md, preamble).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from decimal import (
    ROUND_HALF_EVEN,
    ROUND_HALF_UP,
    Context,
    Decimal,
    DivisionByZero,
    InvalidOperation,
    Overflow,
    localcontext,
)
from typing import Any, NamedTuple

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from tid.rules.errors import InputError
from tid.rules.limits import MAX_FORMULA_TEXT, check_impost_work, checkpoint
from tid.rules.messages import N_, Message, render, render_all
from tid.rules.money import CENT, ZERO, allocate, money_str, parse_decimal, round_cents
from tid.rules.trace import TraceStep

CITATION = N_("21 LPRA § 6653(3)(d)")

# Bounds of the language (technical limits, not statutory amounts).
MAX_FORMULA_LENGTH = MAX_FORMULA_TEXT
MAX_DEPTH = 64
MAX_NUMBER_DIGITS = 30
MAX_ROUND_PLACES = 10
MAX_AMOUNT = Decimal(10) ** 20  # far above any impost; keeps cents exact within precision

_CONTEXT = Context(
    prec=40, rounding=ROUND_HALF_EVEN, traps=[InvalidOperation, DivisionByZero, Overflow]
)

_GRAMMAR = r"""
?start: or_expr

?or_expr: and_expr
        | or_expr OR and_expr -> logic
?and_expr: not_expr
         | and_expr AND not_expr -> logic
?not_expr: comparison
         | NOT not_expr -> not_
?comparison: sum_expr
           | sum_expr COMP sum_expr -> compare
?sum_expr: product
         | sum_expr PLUS product -> arith
         | sum_expr MINUS product -> arith
?product: unary
        | product STAR unary -> arith
        | product SLASH unary -> arith
?unary: atom
      | MINUS unary -> unary
      | PLUS unary -> unary
?atom: NUMBER -> number
     | STRING -> string
     | NAME -> name
     | NAME LPAR [arguments] RPAR -> call
     | LPAR or_expr RPAR
arguments: or_expr (COMMA or_expr)*

OR: "or"i
AND: "and"i
NOT: "not"i
COMP: /==|!=|<=|>=|<>|=|<|>/
PLUS: "+"
MINUS: "-"
STAR: "*"
SLASH: "/"
LPAR: "("
RPAR: ")"
COMMA: ","
NUMBER: /\d+(\.\d+)?|\.\d+/
STRING: /"[^"\n]*"/ | /'[^'\n]*'/
NAME: /[A-Za-z_][A-Za-z0-9_]*/
%ignore /[ \t\r\n]+/
"""

_TERMINAL_WORDS = {
    "OR": "'or'",
    "AND": "'and'",
    "NOT": "'not'",
    "COMP": "a comparison",
    "PLUS": "'+'",
    "MINUS": "'-'",
    "STAR": "'*'",
    "SLASH": "'/'",
    "LPAR": "'('",
    "RPAR": "')'",
    "COMMA": "','",
    "NUMBER": "a number",
    "STRING": "text in quotes",
    "NAME": "a name",
    "$END": "the end of the formula",
}


@functools.cache
def _parser() -> Lark:
    return Lark(_GRAMMAR, parser="lalr", propagate_positions=False, maybe_placeholders=False)


# ---------------------------------------------------------------------------------------------
# The typed tree
# ---------------------------------------------------------------------------------------------

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
    name: str


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
_COMPARE = {
    "==": operator.eq,
    "=": operator.eq,
    "!=": operator.ne,
    "<>": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
_COMPARE_WORDS = {
    "==": "=",
    "=": "=",
    "!=": "≠",
    "<>": "≠",
    "<": "<",
    "<=": "≤",
    ">": ">",
    ">=": "≥",
}
_ARITH_WORDS = {"+": "+", "-": "−", "*": "×", "/": "÷"}


def _where(text: str, offset: int) -> str:
    """``column 14`` (1-based), or ``line 2, column 3`` in a formula of several lines."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"column {column}" if line == 1 else f"line {line}, column {column}"


def _formula_error(text: str, offset: int, message: str, hint: str = "") -> InputError:
    return InputError("formula", f"{message} at {_where(text, offset)}{hint}")


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
        return _where(self.text, node.start)

    def source(self, node: Node) -> str:
        return self.text[node.start : node.end]


def compile_formula(
    text: str, *, parameters: Collection[str] = (), attributes: Collection[str] | None = None
) -> Formula:
    """21 LPRA § 6653(3)(d): check the ordinance's formula and list the names it uses.

    ``parameters`` are the ordinance's named parameters (e.g. ``budget``); every other name is
    an attribute of each property. Given ``attributes`` too, a name that is neither is an
    error here, with its position; otherwise it is found missing when evaluated.
    """
    if not text.strip():
        raise InputError("formula", "formula: write the formula of the impost")
    if len(text) > MAX_FORMULA_LENGTH:
        raise InputError(
            "formula",
            f"formula: {len(text)} characters is longer than the {MAX_FORMULA_LENGTH} allowed",
        )
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as err:
        raise _parse_error(text, err) from None
    _check_depth(text, tree)
    node = _convert(text, tree)
    aggregates: list[Call] = []
    _check_types(text, node, NUM, inside_aggregate=False, aggregates=aggregates)
    names: list[str] = []
    _collect_names(node, names)
    params = tuple(n for n in names if n in parameters)
    attrs = tuple(n for n in names if n not in parameters)
    if attributes is not None:
        for n in attrs:
            if n not in attributes:
                raise _formula_error(
                    text,
                    _first_use(node, n).start,
                    f"unknown name {n!r}: not a parameter nor an attribute of the properties",
                )
    return Formula(text, node, tuple(names), params, attrs, tuple(aggregates), _size(node))


def _size(node: Node) -> int:
    count, stack = 0, [node]
    while stack:
        count += 1
        stack.extend(_children(stack.pop()))
    return count


def _parse_error(text: str, err: UnexpectedInput) -> InputError:
    offset = err.pos_in_stream if err.pos_in_stream is not None else len(text)
    if isinstance(err, UnexpectedCharacters):
        return _formula_error(text, offset, f"unexpected character {text[offset]!r}")
    if isinstance(err, UnexpectedEOF):
        return _formula_error(text, len(text), "the formula ends too early")
    if isinstance(err, UnexpectedToken):
        token = err.token
        expected = sorted({_TERMINAL_WORDS.get(e, e) for e in err.expected})
        hint = f"; expected {', '.join(expected)}" if len(expected) <= 6 else ""
        if token.type == "$END":
            return _formula_error(text, len(text), "the formula ends too early", hint)
        offset = token.start_pos if token.start_pos is not None else offset
        return _formula_error(text, offset, f"unexpected {str(token)!r}", hint)
    return _formula_error(text, offset, "the formula cannot be read")  # pragma: no cover


def _precedence(op: object) -> int:
    """6 for ``+ -``, 7 for ``* /``: operators of one precedence chain left to right."""
    return 6 if str(op) in "+-" else 7


def _chains_on(parent: Tree[Token], index: int, child: Tree[Token]) -> bool:
    """Whether ``child`` continues its parent's chain (``a + b`` inside ``a + b + c``)."""
    return (
        index == 0
        and parent.data == "arith"
        and child.data == "arith"
        and _precedence(child.children[1]) == _precedence(parent.children[1])
    )


def _check_depth(text: str, tree: Tree[Token]) -> None:
    """Refuse a formula that nests more than ``MAX_DEPTH`` operations inside each other.

    A chain of one precedence (``a + b + … + z``) is one level however long, and the
    parentheses and argument lists only group; every walk of the formula's tree is then at
    most ``MAX_DEPTH`` deep. Iterative, so that no input can exhaust the interpreter's
    recursion limit.
    """
    stack: list[tuple[Tree[Token], int]] = [(tree, 1)]
    while stack:
        subtree, depth = stack.pop()
        if depth > MAX_DEPTH:
            offset = _first_offset(subtree)
            raise _formula_error(
                text, offset, f"the formula nests more than {MAX_DEPTH} levels deep"
            )
        for index, child in enumerate(subtree.children):
            if isinstance(child, Tree):
                flat = child.data in ("atom", "arguments") or _chains_on(subtree, index, child)
                stack.append((child, depth if flat else depth + 1))


def _first_offset(tree: Tree[Token]) -> int:
    """Where the first token of a subtree stands (its leftmost leaf)."""
    current: Tree[Token] | Token = tree
    while isinstance(current, Tree):
        if not current.children:
            return 0
        current = current.children[0]
    return current.start_pos or 0


def _outer(kid: Tree[Token] | Token, node: Node) -> tuple[int, int]:
    """The span of a converted child as written: with its parentheses, if it had them."""
    if isinstance(kid, Tree) and kid.data == "atom":
        first, last = kid.children[0], kid.children[-1]
        assert isinstance(first, Token) and isinstance(last, Token)
        return first.start_pos or 0, last.end_pos or 0
    return node.start, node.end


def _token(kid: Tree[Token] | Token) -> Token:
    assert isinstance(kid, Token)
    return kid


def _convert(text: str, tree: Tree[Token] | Token) -> Node:
    """The typed tree of a parse tree. Spans are taken from the tokens (the parser does not
    track positions, which would cost a third of its time): a node spans its tokens, and a
    parenthesized child counts with its parentheses."""
    if isinstance(tree, Token):  # pragma: no cover - every token is wrapped by a rule
        raise _formula_error(text, tree.start_pos or 0, f"unexpected {str(tree)!r}")
    while tree.data == "atom":  # ( expression ): the parentheses only group
        tree = next(k for k in tree.children if isinstance(k, Tree))
    kids = tree.children
    rule = tree.data
    if rule in ("number", "string", "name"):
        token = _token(kids[0])
        start, end = token.start_pos or 0, token.end_pos or 0
        if rule == "string":
            return Text(start, end, str(token)[1:-1])
        if rule == "name":
            return Name(start, end, str(token))
        digits = str(token).replace(".", "")
        if len(digits) > MAX_NUMBER_DIGITS:
            raise _formula_error(text, start, f"a number of more than {MAX_NUMBER_DIGITS} digits")
        return Num(start, end, Decimal(str(token)))
    if rule in ("unary", "not_"):
        op = _token(kids[0])
        operand = _convert(text, kids[1])
        start, end = op.start_pos or 0, _outer(kids[1], operand)[1]
        if rule == "not_":
            return Not(start, end, operand)
        return Unary(start, end, str(op), operand)
    if rule == "arith":  # the whole chain of one precedence, without recursing down it
        rest: list[Operation] = []
        link: Tree[Token] = tree
        while True:
            op = _token(link.children[1])
            rest.append(Operation(str(op), _convert(text, link.children[2]), op.start_pos or 0))
            left = link.children[0]
            assert isinstance(left, Tree)
            if not _chains_on(link, 0, left):
                break
            link = left
        rest.reverse()
        first = _convert(text, left)
        start, end = _outer(left, first)[0], _outer(kids[2], rest[-1].operand)[1]
        return Arith(start, end, first, tuple(rest))
    if rule in ("compare", "logic"):
        left_node, right_node = _convert(text, kids[0]), _convert(text, kids[2])
        start, end = _outer(kids[0], left_node)[0], _outer(kids[2], right_node)[1]
        if rule == "compare":
            return Compare(start, end, str(kids[1]), left_node, right_node)
        return Logic(start, end, str(kids[1]).lower(), left_node, right_node)
    if rule == "call":
        name = _token(kids[0])
        start, end = name.start_pos or 0, _token(kids[-1]).end_pos or 0
        func = str(name).lower()
        if func not in FUNCTIONS:
            raise _formula_error(
                text,
                start,
                f"unknown function {str(name)!r}",
                f"; known: {', '.join(FUNCTIONS)}",
            )
        args: tuple[Node, ...] = ()
        for kid in kids:
            if isinstance(kid, Tree) and kid.data == "arguments":
                args = tuple(_convert(text, a) for a in kid.children if isinstance(a, Tree))
        return Call(start, end, func, args)
    raise _formula_error(
        text, _first_offset(tree), "the formula cannot be read"
    )  # pragma: no cover


def _children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, Unary | Not):
        return (node.operand,)
    if isinstance(node, Arith):
        return node.operand_nodes
    if isinstance(node, Compare | Logic):
        return (node.left, node.right)
    if isinstance(node, Call):
        return node.args
    return ()


def _collect_names(node: Node, names: list[str]) -> None:
    if isinstance(node, Name) and node.name not in names:
        names.append(node.name)
    for child in _children(node):
        _collect_names(child, names)


def _first_use(node: Node, name: str) -> Node:
    """The first occurrence of ``name`` (in reading order), or the root if none."""
    stack = [node]
    found: list[Node] = []
    while stack:
        current = stack.pop()
        if isinstance(current, Name) and current.name == name:
            found.append(current)
        stack.extend(_children(current))
    return min(found, key=lambda n: n.start) if found else node


def _static_type(node: Node) -> str:
    if isinstance(node, Num | Unary | Arith):
        return NUM
    if isinstance(node, Text):
        return TEXT
    if isinstance(node, Compare | Logic | Not):
        return BOOL
    if isinstance(node, Call):
        if node.func == "if" and len(node.args) == 3:
            a, b = _static_type(node.args[1]), _static_type(node.args[2])
            return a if a == b else (a if b == ANY else b if a == ANY else ANY)
        return NUM
    return ANY  # a name: a number or text, known only from the property


def _check_types(
    text: str, node: Node, want: str, *, inside_aggregate: bool, aggregates: list[Call]
) -> None:
    """Refuse, with its position, what can never make sense: text in arithmetic, a number as
    a condition, a function with the wrong arguments."""
    have = _static_type(node)
    if want != ANY and have not in (want, ANY):
        what = {NUM: "a number", TEXT: "text", BOOL: "a condition"}
        raise _formula_error(text, node.start, f"{what[want]} is needed here, not {what[have]}")
    if want == BOOL and isinstance(node, Name):
        raise _formula_error(
            text,
            node.start,
            f"{node.name!r} is not a condition: compare it, like {node.name} > 0",
        )

    def check(child: Node, child_want: str, *, agg: bool = inside_aggregate) -> None:
        _check_types(text, child, child_want, inside_aggregate=agg, aggregates=aggregates)

    if isinstance(node, Unary):
        check(node.operand, NUM)
    elif isinstance(node, Arith):
        for operand in node.operand_nodes:
            check(operand, NUM)
    elif isinstance(node, Logic):
        check(node.left, BOOL)
        check(node.right, BOOL)
    elif isinstance(node, Not):
        check(node.operand, BOOL)
    elif isinstance(node, Compare):
        if node.op in ("==", "=", "!=", "<>"):
            left, right = _static_type(node.left), _static_type(node.right)
            if BOOL in (left, right):
                raise _formula_error(text, node.start, "conditions cannot be compared")
            side = left if left != ANY else right
            check(node.left, side)
            check(node.right, side)
        else:
            check(node.left, NUM)
            check(node.right, NUM)
    elif isinstance(node, Call):
        _check_call(text, node, want, inside_aggregate, aggregates, check)


def _check_call(
    text: str,
    node: Call,
    want: str,
    inside_aggregate: bool,
    aggregates: list[Call],
    check: Callable[..., None],
) -> None:
    n = len(node.args)

    def arity(ok: bool, expected: str) -> None:
        if not ok:
            raise _formula_error(text, node.start, f"{node.func}() takes {expected}")

    if node.func in ("max", "min"):
        arity(n >= 1, "one or more numbers")
        for a in node.args:
            check(a, NUM)
    elif node.func == "round":
        arity(n == 2, "a number and the decimal places, like round(x, 2)")
        check(node.args[0], NUM)
        places = node.args[1]
        if (
            not isinstance(places, Num)
            or places.value != places.value.to_integral_value()
            or not 0 <= places.value <= MAX_ROUND_PLACES
        ):
            raise _formula_error(
                text,
                places.start,
                f"the decimal places of round() are a whole number from 0 to {MAX_ROUND_PLACES}",
            )
    elif node.func == "if":
        arity(n == 3, "a condition and two values, like if(rooms > 100, a, b)")
        check(node.args[0], BOOL)
        check(node.args[1], want if want != BOOL else NUM)
        check(node.args[2], want if want != BOOL else NUM)
        if TEXT in (_static_type(node.args[1]), _static_type(node.args[2])):
            raise _formula_error(text, node.start, "the values of if() must be numbers")
    else:  # sum, count
        if inside_aggregate:
            raise _formula_error(text, node.start, f"{node.func}() cannot be inside sum or count")
        if node.func == "sum":
            arity(n == 1, "one expression, like sum(assessed_value)")
            check(node.args[0], NUM, agg=True)
        else:
            arity(n <= 1, 'nothing, or one condition, like count(kind == "hotel")')
            if n:
                check(node.args[0], BOOL, agg=True)
        aggregates.append(node)


# ---------------------------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------------------------

Value = Decimal | str | bool
Fn = Callable[[Mapping[str, Any]], Any]
_MISSING = object()


class _EvalError(Exception):
    """An error while evaluating one property, raised with the node at fault."""

    def __init__(self, offset: int, message: str, attribute: str | None = None) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message
        self.attribute = attribute


class PropertyImpost(NamedTuple):
    """One property's yearly impost (immutable): the amount (cents) and how it was reached.

    The explanation is written when read, so that billing many properties does not pay for
    sentences nobody reads (a named tuple, too, because it is made 100,000 times in a run).
    """

    id: str
    amount: Decimal
    exact: Decimal  # the formula's value before rounding to cents
    source: _Explainer  # shared by every line of one evaluation
    position: int  # the property's place in the list evaluated

    @property
    def explanation(self) -> str:
        """How the amount was computed: a message (as a ``str``, its English), said in any
        language with :func:`tid.rules.messages.render`."""
        return self.source.explain(self.position, self.exact, self.amount)

    @property
    def explanation_es(self) -> str:
        """The same explanation in Spanish (the notices speak Spanish first)."""
        return render(self.explanation, "es")


@dataclass(frozen=True, eq=False, repr=False)
class _Explainer:
    """What the explanations of one evaluation need: the compiled formula and the inputs."""

    def __repr__(self) -> str:
        return f"<explanations of {self.formula.text!r}>"

    compiler: _Compiler
    formula: Formula
    properties: Sequence[Mapping[str, Any]]
    budget: Decimal | None

    def explain(self, index: int, exact: Decimal, amount: Decimal) -> str:
        return _explanation(
            self.compiler, self.formula, self.properties[index], exact, amount, self.budget
        )


@dataclass(frozen=True)
class ImpostResult:
    formula: str
    properties: tuple[PropertyImpost, ...]
    total: Decimal
    apportioned: bool
    budget: Decimal | None  # the amount apportioned, when the formula is an apportionment
    warnings: tuple[str, ...]
    trace: tuple[TraceStep, ...]


# The roll's usual attributes and parameters, labelled; any other name is shown as written.
_LABELS = {
    "assessed_value": Message("assessed value"),
    "rooms": Message("rooms"),
    "land_area": Message("land area"),
    "built_area": Message("built area"),
    "frontage": Message("frontage"),
    "use_class": Message("use class"),
    "budget": Message("budget"),
    "expected_amount": Message("expected amount"),
}


def _label(name: str) -> str:
    """A name of the formula as users call it: a message for the usual ones, else the name as
    the roll or the ordinance writes it."""
    if name in _LABELS:
        return _LABELS[name]
    return name.replace("_", " ")


def _compose(template: str, **parts: str) -> str:
    """Parts of an explanation put together with symbols only (parentheses, operators): the
    same in every language, so not a catalog entry (the template is not a literal that
    ``make messages`` extracts); each part is said in the reader's language."""
    return Message(template, **parts)


def _fmt(value: Decimal, *, literal: bool = False) -> str:
    """A number as a clerk reads it: a value with two decimals is money ($1,234.50), others
    plain (0.0125, 120). In the formula's own text a literal under 1 (0.02) is taken for a
    rate, not money."""
    if value.as_tuple().exponent == -2 and not (literal and abs(value) < 1):
        return ("-" if value < 0 else "") + f"${abs(value):,}"
    return f"{value:,}"


def _money(value: Decimal) -> str:
    return ("-" if value < 0 else "") + f"${abs(value):,.2f}"


_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
}


_LITERALS = (Num, Text)


def _constant_fn(value: Value) -> Fn:
    return lambda p: value


class _Compiler:
    """Builds the closure tree of a formula for one set of parameters and properties.

    Every node is examined once: whether it varies from property to property, its closure
    and its folded constant are each remembered per node, so compiling costs time in
    proportion to the formula's size (``visits`` counts the nodes examined).
    """

    def __init__(self, formula: Formula, parameters: Mapping[str, Value]) -> None:
        self.formula = formula
        self.parameters = parameters
        self.aggregates: dict[int, Decimal] = {}
        self.conditions: dict[int, Fn] = {}
        self.visits = 0
        # Keyed by id(node); the node is kept beside its entry so that its id stays its own.
        self._varies: dict[int, tuple[Node, bool]] = {}
        self._built: dict[tuple[int, str], tuple[Node, Fn]] = {}
        self._constants: dict[int, tuple[Node, Value]] = {}

    def depends(self, node: Node) -> bool:
        """Whether the node's value differs from property to property."""
        known = self._varies.get(id(node))
        if known is not None:
            return known[1]
        self.visits += 1
        if isinstance(node, Name):
            varies = node.name not in self.parameters
        elif isinstance(node, Call) and node.func in AGGREGATES:
            varies = False
        else:
            varies = any([self.depends(c) for c in _children(node)])
        self._varies[id(node)] = (node, varies)
        return varies

    def build(self, node: Node, want: str) -> Fn:
        key = (id(node), want)
        known = self._built.get(key)
        if known is not None:
            return known[1]
        self.visits += 1
        fn = self._build(node, want)
        if isinstance(node, _LITERALS):
            self._constants[id(node)] = (node, node.value)
        elif not self.depends(node):
            try:  # fold a constant once; an error stays where it would happen
                value = fn({})
            except (_EvalError, ArithmeticError):
                pass
            else:
                self._constants[id(node)] = (node, value)
                fn = _constant_fn(value)
        self._built[key] = (node, fn)
        return fn

    def attribute(self, name: str) -> Fn:
        """The closure reading one attribute of a property as a number."""
        return self._name(Name(0, 0, name), NUM)

    def _build(self, node: Node, want: str) -> Fn:
        if isinstance(node, _LITERALS):
            literal = node.value
            return lambda p: literal
        if isinstance(node, Name):
            return self._name(node, want)
        if isinstance(node, Unary):
            operand = self.build(node.operand, NUM)
            if node.op == "-":
                return lambda p: -operand(p)
            return operand
        if isinstance(node, Arith):
            return self._arith(node)
        if isinstance(node, Compare):
            return self._compare(node)
        if isinstance(node, Logic):
            left, right = self.build(node.left, BOOL), self.build(node.right, BOOL)
            if node.op == "and":
                return lambda p: left(p) and right(p)
            return lambda p: left(p) or right(p)
        if isinstance(node, Not):
            operand = self.build(node.operand, BOOL)
            return lambda p: not operand(p)
        assert isinstance(node, Call)
        return self._call(node, want)

    def _name(self, node: Name, want: str) -> Fn:
        name = node.name
        if name in self.parameters:
            value = self.parameters[name]
            if want == NUM and not isinstance(value, Decimal):
                raise InputError(
                    f"parameters.{name}",
                    f"parameters.{name}: {value!r} is not a number, and the formula uses "
                    f"{name} as one at {self.formula.position(node)}",
                )
            return lambda p: value
        offset = node.start

        def attribute_number(p: Mapping[str, Any]) -> Any:
            try:
                value = p[name]
            except KeyError:
                value = _MISSING
            if value.__class__ is Decimal:
                return value
            return _as_number(value, name, offset)

        def attribute_value(p: Mapping[str, Any]) -> Any:
            value = p.get(name, _MISSING)
            if value is _MISSING:
                raise _EvalError(
                    offset,
                    f"unknown name {name!r}: not a parameter nor an attribute of this property",
                    name,
                )
            return value

        return attribute_number if want == NUM else attribute_value

    def constant(self, node: Node) -> Decimal | None:
        """The node's value when it is the same for every property and computes cleanly."""
        if node.__class__ is Num:
            return node.value
        if self.depends(node):
            return None
        self.build(node, NUM)
        known = self._constants.get(id(node))
        value = known[1] if known is not None else None
        return value if isinstance(value, Decimal) else None

    def _arith(self, node: Arith) -> Fn:
        operands = node.operand_nodes
        fns = [self.build(n, NUM) for n in operands]
        # A constant operand is captured as a value, saving a call per property (speed
        # matters: a roll has up to 100,000 properties); constants at the head of a chain
        # are folded into one value, in the order written.
        head, head_value = fns[0], self.constant(operands[0])
        folded = 0
        while folded < len(node.rest) and head_value is not None:
            operation = node.rest[folded]
            value = self.constant(operation.operand)
            if value is None or (operation.op == "/" and not value):
                break
            try:
                head_value = _OPERATORS[operation.op](head_value, value)
            except ArithmeticError:
                break
            folded += 1
        steps = list(zip(node.rest[folded:], fns[1 + folded :], strict=True))
        if head_value is not None:
            head = _constant_fn(head_value)
        if not steps:
            return head
        if len(steps) == 1:
            operation, right = steps[0]
            return self._binary(operation, head, head_value, right)
        return self._chain(head, steps)

    def _binary(self, operation: Operation, left: Fn, lc: Decimal | None, right: Fn) -> Fn:
        rc = self.constant(operation.operand)
        op = operation.op
        if op in "+*" and (lc is not None or rc is not None):
            c, f = (lc, right) if lc is not None else (rc, left)
            assert c is not None
            if op == "+":
                return lambda p: c + f(p)
            return lambda p: c * f(p)
        if op == "-" and rc is not None:
            return lambda p: left(p) - rc
        if op == "/" and rc:
            return lambda p: left(p) / rc
        if op == "+":
            return lambda p: left(p) + right(p)
        if op == "-":
            return lambda p: left(p) - right(p)
        if op == "*":
            return lambda p: left(p) * right(p)
        offset, divisor_text = operation.op_at, self.formula.source(operation.operand)

        def divide(p: Mapping[str, Any]) -> Any:
            divisor = right(p)
            if not divisor:
                raise _EvalError(offset, f"division by zero ({divisor_text} is 0)")
            return left(p) / divisor

        return divide

    def _chain(self, head: Fn, steps: Sequence[tuple[Operation, Fn]]) -> Fn:
        """A long chain as one loop (closures nested a thousand deep would overflow)."""
        plan = tuple(
            (
                _OPERATORS[operation.op],
                fn,
                operation.op == "/",
                operation.op_at,
                self.formula.source(operation.operand),
            )
            for operation, fn in steps
        )

        def chain(p: Mapping[str, Any]) -> Any:
            value = head(p)
            for apply, fn, divides, offset, source in plan:
                operand = fn(p)
                if divides and not operand:
                    raise _EvalError(offset, f"division by zero ({source} is 0)")
                value = apply(value, operand)
            return value

        return chain

    def _compare(self, node: Compare) -> Fn:
        test = _COMPARE[node.op]
        if node.op in ("==", "=", "!=", "<>"):
            left_type, right_type = _static_type(node.left), _static_type(node.right)
            side = left_type if left_type != ANY else right_type
            left, right = self.build(node.left, side), self.build(node.right, side)
            offset = node.start

            def equal(p: Mapping[str, Any]) -> bool:
                a, b = left(p), right(p)
                if a.__class__ is not b.__class__:
                    raise _EvalError(offset, f"compares {_kind(a)} with {_kind(b)}")
                return bool(test(a, b))

            return equal
        left, right = self.build(node.left, NUM), self.build(node.right, NUM)
        return lambda p: bool(test(left(p), right(p)))

    def _call(self, node: Call, want: str) -> Fn:
        if node.func in AGGREGATES:
            total = self.aggregates[id(node)]
            return lambda p: total
        if node.func in ("max", "min"):
            fns = [self.build(a, NUM) for a in node.args]
            pick = max if node.func == "max" else min
            if len(fns) == 2:
                first, second = fns
                return lambda p: pick(first(p), second(p))
            return lambda p: pick(f(p) for f in fns)
        if node.func == "round":
            value = self.build(node.args[0], NUM)
            places = node.args[1]
            assert isinstance(places, Num)
            quantum = Decimal(1).scaleb(-int(places.value))
            return lambda p: value(p).quantize(quantum, rounding=ROUND_HALF_UP)
        condition = self.build(node.args[0], BOOL)
        self.conditions[id(node)] = condition
        branch_want = NUM if want in (NUM, BOOL) else want
        yes, no = self.build(node.args[1], branch_want), self.build(node.args[2], branch_want)
        return lambda p: yes(p) if condition(p) else no(p)

    def compute_aggregates(self, properties: Sequence[Mapping[str, Any]], ids: list[str]) -> None:
        for node in self.formula.aggregates:
            if node.func == "sum":
                fn = self.build(node.args[0], NUM)
                total = ZERO
                for i, p in enumerate(properties):
                    checkpoint()
                    try:
                        total += fn(p)
                    except _EvalError as err:
                        raise self.error(err, i, ids[i]) from None
                self.aggregates[id(node)] = total
            elif node.args:
                cond = self.build(node.args[0], BOOL)
                count = 0
                for i, p in enumerate(properties):
                    checkpoint()
                    try:
                        count += bool(cond(p))
                    except _EvalError as err:
                        raise self.error(err, i, ids[i]) from None
                self.aggregates[id(node)] = Decimal(count)
            else:
                self.aggregates[id(node)] = Decimal(len(properties))

    def error(self, err: _EvalError, index: int, property_id: str) -> InputError:
        field = f"properties[{index}]" + (f".{err.attribute}" if err.attribute else "")
        return InputError(
            field,
            f"property {property_id}: {err.message} "
            f"at {_where(self.formula.text, err.offset)} of the formula",
        )

    # -- explanations: a function of the tree and one property's values --------------------

    def explain(self, node: Node, p: Mapping[str, Any]) -> tuple[str, int]:
        """The node in words and numbers, with its precedence (for parentheses): a message
        (or plain text for numbers and the formula's own text), said in any language."""
        if isinstance(node, Num):
            return _fmt(node.value, literal=True), 9
        if isinstance(node, Text):
            return f'"{node.value}"', 9
        if isinstance(node, Name):
            return self._explain_name(node, p), 9
        if isinstance(node, Unary):
            inner, prec = self.explain(node.operand, p)
            inner = _compose("(%(x)s)", x=inner) if prec < 8 else inner
            return (_compose("−%(x)s", x=inner) if node.op == "-" else inner), 8
        if isinstance(node, Arith):
            return self._explain_arith(node, p)
        if isinstance(node, Compare | Logic):
            prec = 4 if isinstance(node, Compare) else {"or": 1, "and": 2}[node.op]
            left, lp = self.explain(node.left, p)
            right, rp = self.explain(node.right, p)
            left = _compose("(%(x)s)", x=left) if lp < prec else left
            right = _compose("(%(x)s)", x=right) if rp < prec else right
            if isinstance(node, Compare):
                template = "%(left)s " + _COMPARE_WORDS[node.op] + " %(right)s"
                return _compose(template, left=left, right=right), prec
            if node.op == "or":
                return Message("%(left)s or %(right)s", left=left, right=right), prec
            return Message("%(left)s and %(right)s", left=left, right=right), prec
        if isinstance(node, Not):
            inner, prec = self.explain(node.operand, p)
            if prec < 9:
                return Message("not (%(condition)s)", condition=inner), 3
            return Message("not %(condition)s", condition=inner), 3
        assert isinstance(node, Call)
        if node.func in AGGREGATES:
            return self._explain_aggregate(node), 9
        if node.func == "if":
            taken = bool(self.conditions[id(node)](p))
            cond, _ = self.explain(node.args[0], p)
            branch, prec = self.explain(node.args[1] if taken else node.args[2], p)
            branch = _compose("(%(x)s)", x=branch) if prec < 9 else branch
            if taken:
                return Message(
                    "%(value)s (as %(condition)s is true)", value=branch, condition=cond
                ), 9
            return Message("%(value)s (as %(condition)s is false)", value=branch, condition=cond), 9
        args = [self.explain(a, p)[0] for a in node.args]
        if node.func == "round":
            return Message("round(%(value)s, %(places)s)", value=args[0], places=args[1]), 9
        listed = _compose(
            ", ".join(f"%(a{i})s" for i in range(len(args))),
            **{f"a{i}": a for i, a in enumerate(args)},
        )
        if node.func == "max":
            return Message("max(%(values)s)", values=listed), 9
        return Message("min(%(values)s)", values=listed), 9

    def _explain_name(self, node: Name, p: Mapping[str, Any]) -> str:
        value = self.parameters.get(node.name, p.get(node.name, _MISSING))
        label = _label(node.name)
        if isinstance(value, str):
            return Message('%(name)s "%(text)s"', name=label, text=value)
        if isinstance(value, Decimal):
            shown = _fmt(value)
            # Spanish joins an amount of money to its name with "de": "$31,500.00 de valor
            # tasado", but a count stays plain: "22 habitaciones".
            if "$" in shown:
                return Message("%(money)s %(name)s", money=shown, name=label)
            return Message("%(number)s %(name)s", number=shown, name=label)
        return label

    def _explain_arith(self, node: Arith, p: Mapping[str, Any]) -> tuple[str, int]:
        prec = 6 if node.rest[0].op in "+-" else 7
        text, first_prec = self.explain(node.first, p)
        parts = [_compose("(%(x)s)", x=text) if first_prec < prec else text]
        template = "%(p0)s"
        for i, operation in enumerate(node.rest, start=1):
            text, rp = self.explain(operation.operand, p)
            strict = operation.op in "-/"
            wrap = rp < prec or (strict and rp == prec)
            parts.append(_compose("(%(x)s)", x=text) if wrap else text)
            template += f" {_ARITH_WORDS[operation.op]} %(p{i})s"
        return _compose(template, **{f"p{i}": part for i, part in enumerate(parts)}), prec

    def _explain_aggregate(self, node: Call) -> str:
        value = self.aggregates[id(node)]
        if node.func == "count":
            count = f"{value:,}"
            if node.args:
                where = self.formula.source(node.args[0])
                if value == 1:
                    return Message(
                        "%(count)s property where %(condition)s", count=count, condition=where
                    )
                return Message(
                    "%(count)s properties where %(condition)s", count=count, condition=where
                )
            if value == 1:
                return Message("%(count)s property", count=count)
            return Message("%(count)s properties", count=count)
        arg = node.args[0]
        if isinstance(arg, Name):
            return Message("%(total)s total %(name)s", total=_fmt(value), name=_label(arg.name))
        return Message(
            "%(total)s total of %(expression)s",
            total=_fmt(value),
            expression=self.formula.source(arg),
        )


def _kind(value: object) -> str:
    return "text" if isinstance(value, str) else "a number"


def _as_number(value: object, name: str, offset: int) -> Decimal:
    if value is _MISSING:
        raise _EvalError(
            offset,
            f"unknown name {name!r}: not a parameter nor an attribute of this property",
            name,
        )
    if isinstance(value, (bool, float)):
        raise _EvalError(offset, f'{name} must be written as text, like "120"', name)
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, str):
        try:
            return parse_decimal(value, name, allow_negative=True)
        except InputError:
            raise _EvalError(offset, f"{name} is {value!r}, not a number", name) from None
    if isinstance(value, Decimal):
        return value
    raise _EvalError(offset, f"{name} is not a number", name)


def _product_factors(node: Node, inverted: bool, out: list[tuple[Node, bool]]) -> None:
    """The factors of a top-level product/quotient, each marked as divisor or not."""
    if isinstance(node, Arith) and node.rest[0].op in "*/":
        _product_factors(node.first, inverted, out)
        for operation in node.rest:
            _product_factors(
                operation.operand, inverted if operation.op == "*" else not inverted, out
            )
    else:
        out.append((node, inverted))


def apportioned_attribute(formula: Formula, parameters: Collection[str]) -> str | None:
    """The attribute ``A`` when the formula is ``X * A / sum(A)`` (in any order of factors,
    ``X`` the same for every property): the formula apportions ``X`` in proportion to ``A``."""
    factors: list[tuple[Node, bool]] = []
    _product_factors(formula.tree, False, factors)
    divisors = [f for f, inverted in factors if inverted]
    if len(divisors) != 1:
        return None
    divisor = divisors[0]
    if not (
        isinstance(divisor, Call)
        and divisor.func == "sum"
        and isinstance(divisor.args[0], Name)
        and divisor.args[0].name not in parameters
    ):
        return None
    attribute = divisor.args[0].name
    weights = [f for f, inverted in factors if not inverted and _is_name(f, attribute)]
    others = [f for f, inverted in factors if not inverted and not _is_name(f, attribute)]
    if len(weights) != 1:
        return None
    constant = _Compiler(formula, dict.fromkeys(parameters, ZERO))
    if any(constant.depends(f) for f in others):
        return None
    return attribute


def _is_name(node: Node, name: str) -> bool:
    return isinstance(node, Name) and node.name == name


def _property_ids(properties: Sequence[Mapping[str, Any]]) -> list[str]:
    ids: list[str] = []
    for i, p in enumerate(properties):
        try:
            raw = p.get("id")
        except AttributeError:
            raise InputError(f"properties[{i}]", f"properties[{i}]: not a property") from None
        if raw.__class__ is str:
            pid = raw.strip()
        elif raw.__class__ is int:
            pid = str(raw)
        else:
            pid = ""
        if not pid:
            raise InputError(
                f"properties[{i}].id", f"properties[{i}].id: every property needs an id"
            )
        ids.append(pid)
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        for i, pid in enumerate(ids):
            if pid in seen:
                raise InputError(
                    f"properties[{i}].id", f"properties[{i}].id: {pid!r} is used twice"
                )
            seen.add(pid)
    return ids


# Long: one pass over the roll: each property's amount, its checks and the apportionments' exact
# split.
def evaluate(
    formula: Formula,
    properties: Sequence[Mapping[str, Any]],
    parameters: Mapping[str, Value] | None = None,
) -> ImpostResult:
    """21 LPRA § 6653(3)(d): the yearly impost of each property by the ordinance's formula.

    Each property is a mapping with an ``id`` and its attributes (``Decimal`` numbers or text).
    Amounts are rounded to cents half-up; an apportionment ``X * A / sum(A)`` is split by
    the largest-remainder method so that its shares add up to ``X`` to the cent.
    """
    params: Mapping[str, Value] = parameters or {}
    ids = _property_ids(properties)
    for name in formula.names:
        if name in params:
            for i, p in enumerate(properties):
                if name in p:
                    raise InputError(
                        f"properties[{i}].{name}",
                        f"property {ids[i]}: {name!r} is both a parameter and an attribute",
                    )
    compiler = _Compiler(formula, params)
    warnings: list[str] = []
    trace = [TraceStep(Message("formula"), formula.text, CITATION)]
    for name in formula.names:
        if name in params:
            value = params[name]
            shown = _fmt(value) if isinstance(value, Decimal) else repr(value)
            trace.append(
                TraceStep(
                    Message(
                        "parameter %(name)s",
                        name=name,
                    ),
                    shown,
                    N_("the ordinance"),
                )
            )
    with localcontext(_CONTEXT):
        try:
            compiler.compute_aggregates(properties, ids)
        except (InvalidOperation, Overflow):
            raise InputError("formula", "formula: a total is too large to compute") from None
        for node in formula.aggregates:
            trace.append(
                TraceStep(
                    formula.source(node),
                    _fmt(compiler.aggregates[id(node)]),
                    f"{CITATION}; over all {len(properties)} properties",
                )
            )
        fn = compiler.build(formula.tree, NUM)
        exacts: list[Decimal] = []
        for i, p in enumerate(properties):
            checkpoint()
            try:
                value = fn(p)
            except _EvalError as err:
                raise compiler.error(err, i, ids[i]) from None
            except (InvalidOperation, Overflow):
                raise InputError(
                    f"properties[{i}]", f"property {ids[i]}: the amount is too large to compute"
                ) from None
            if value.__class__ is not Decimal:
                raise InputError(
                    f"properties[{i}]",
                    f"property {ids[i]}: the formula gives {value!r}, not an amount",
                )
            if value < 0:
                raise InputError(
                    f"properties[{i}]",
                    f"property {ids[i]}: the formula gives a negative amount ({_fmt(value)}); "
                    "an impost cannot be negative (use max(0, ...) if that is the intent)",
                )
            if value >= MAX_AMOUNT:
                raise InputError(
                    f"properties[{i}]",
                    f"property {ids[i]}: the formula gives {value:E}, too large for an amount",
                )
            exacts.append(value)

        attribute = apportioned_attribute(formula, params) if properties else None
        budget: Decimal | None = None
        if attribute is not None:
            amounts, budget = _apportion(formula, compiler, properties, attribute, warnings)
            trace.append(
                TraceStep(
                    Message(
                        "apportionment of %(budget)s in proportion to %(attribute)s",
                        budget=_money(budget),
                        attribute=_label(attribute),
                    ),
                    "largest remainder",
                    "RULES.md, preamble (every split adds up to its total to the cent)",
                )
            )
        else:
            amounts = [v.quantize(CENT, rounding=ROUND_HALF_UP) for v in exacts]
            trace.append(
                TraceStep(
                    Message("each amount"),
                    Message("rounded to cents half-up"),
                    N_("RULES.md, preamble"),
                )
            )

        source = _Explainer(compiler, formula, properties, budget)
        lines = [
            PropertyImpost(pid, amount, exact, source, i)
            for i, (pid, amount, exact) in enumerate(zip(ids, amounts, exacts, strict=True))
        ]
    total = sum(amounts, ZERO)
    trace.append(TraceStep(Message("total"), money_str(total), CITATION))
    return ImpostResult(
        formula=formula.text,
        properties=tuple(lines),
        total=total,
        apportioned=attribute is not None,
        budget=budget,
        warnings=tuple(warnings),
        trace=tuple(trace),
    )


def _apportion(
    formula: Formula,
    compiler: _Compiler,
    properties: Sequence[Mapping[str, Any]],
    attribute: str,
    warnings: list[str],
) -> tuple[list[Decimal], Decimal]:
    factors: list[tuple[Node, bool]] = []
    _product_factors(formula.tree, False, factors)
    budget = Decimal(1)
    for node, inverted in factors:
        if not inverted and not _is_name(node, attribute):
            budget *= compiler.build(node, NUM)({})
    weight = compiler.attribute(attribute)
    weights = [weight(p) for p in properties]
    for i, w in enumerate(weights):
        if w < 0:
            raise InputError(
                f"properties[{i}].{attribute}",
                f"property {properties[i].get('id')}: {attribute} is negative ({_fmt(w)}); "
                "a share of the apportioned amount cannot be",
            )
    if not 0 <= budget < MAX_AMOUNT:
        raise InputError("formula", f"formula: the amount apportioned ({budget:E}) is not usable")
    rounded = round_cents(budget)
    if rounded != budget:
        warnings.append(
            Message(
                "The amount apportioned, %(budget)s, is not whole cents: %(rounded)s is "
                "apportioned (rounded half-up).",
                budget=budget,
                rounded=_money(rounded),
            )
        )
    warnings.append(
        Message(
            "The formula apportions %(rounded)s in proportion to %(attribute)s: each share "
            "is rounded to cents by the largest-remainder method so that the shares add up "
            "to %(rounded)s exactly; a share may differ by a cent from its own rounding.",
            rounded=_money(rounded),
            attribute=_label(attribute),
        )
    )
    return allocate(rounded, weights), rounded


def _explanation(
    compiler: _Compiler,
    formula: Formula,
    p: Mapping[str, Any],
    exact: Decimal,
    amount: Decimal,
    budget: Decimal | None,
) -> str:
    body, _ = compiler.explain(formula.tree, p)
    text = _compose("%(body)s = %(amount)s", body=body, amount=_money(amount))
    if budget is not None:
        if amount != round_cents(exact):
            return Message(
                "%(computed)s (a largest-remainder share of %(budget)s)",
                computed=text,
                budget=_money(budget),
            )
    elif amount != exact:
        return Message("%(computed)s (rounded to cents)", computed=text)
    return text


# ---------------------------------------------------------------------------------------------
# CALCULATORS.md `impost`
# ---------------------------------------------------------------------------------------------


def _document_value(value: object, field: str) -> Value:
    """A number written as text becomes a Decimal; other text stays text (e.g. "hotel")."""
    if isinstance(value, bool | float | int):
        raise InputError(field, f'{field}: write the value as text ("1234.50"), not as a number')
    if isinstance(value, str):
        try:
            number = parse_decimal(value, field, allow_negative=True)
        except InputError:
            return value
        # "120" is the whole number 120 (not 120.0): it reads back as written.
        return number if "." in value else number.quantize(Decimal(1))
    raise InputError(field, f"{field}: expected a number or text")


IMPOST_DOCUMENT_FIELDS = ("formula", "properties", "parameters")


def impost_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """CALCULATORS.md `impost`: each property's yearly impost by the ordinance's formula
    (21 LPRA § 6653(3)(d)).

    An unknown field of the document is refused (a property's attributes are open: any
    column of the roll may be one)."""
    for key in document:
        if key not in IMPOST_DOCUMENT_FIELDS:
            raise InputError(
                str(key),
                f"{key}: unknown field; the fields here are " + ", ".join(IMPOST_DOCUMENT_FIELDS),
            )
    raw_params = document.get("parameters") or {}
    if not isinstance(raw_params, Mapping):
        raise InputError("parameters", "parameters: give the parameters as {name: value}")
    parameters = {str(k): _document_value(v, f"parameters.{k}") for k, v in raw_params.items()}
    text = document.get("formula")
    if not isinstance(text, str):
        raise InputError("formula", "formula: write the formula of the impost as text")
    formula = compile_formula(text, parameters=parameters)
    raw_props = document.get("properties")
    if not isinstance(raw_props, list) or not raw_props:
        raise InputError("properties", "properties: give the list of properties, each with an id")
    check_impost_work(len(raw_props), formula.size)
    properties: list[dict[str, Any]] = []
    for i, item in enumerate(raw_props):
        if not isinstance(item, Mapping):
            raise InputError(f"properties[{i}]", f"properties[{i}]: each property is an object")
        prop: dict[str, Any] = {"id": item.get("id")}
        for key, value in item.items():
            if key != "id":
                prop[str(key)] = _document_value(value, f"properties[{i}].{key}")
        properties.append(prop)
    result = evaluate(formula, properties, parameters)
    lines = []
    for line in result.properties:
        checkpoint()
        explanation = line.explanation  # built once, said in both languages
        lines.append(
            {
                "id": line.id,
                "amount": money_str(line.amount),
                # The message itself: a str equal to its English (the JSON's), which a page
                # renders in its reader's language.
                "explanation": explanation,
                "explanation_es": render(explanation, "es"),
            }
        )
    return {
        "properties": lines,
        "total": money_str(result.total),
        "apportioned": result.apportioned,
        **({"budget": money_str(result.budget)} if result.budget is not None else {}),
        "parameters_used": list(formula.parameters),
        "attributes_used": list(formula.attributes),
        "warnings": list(result.warnings),
        "warnings_es": render_all(result.warnings, "es"),
        "trace": [t.as_json() for t in result.trace],
    }
