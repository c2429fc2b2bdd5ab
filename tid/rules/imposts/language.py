"""The formula language: its grammar and :func:`compile_formula`.

Decimal literals, ``+ - * /``, unary minus, parentheses, comparisons (``== != < <= > >=``),
``and``/``or``/``not``, text in quotes for comparisons, the functions ``max``, ``min``,
``round(x, n)`` (half-up), ``if(condition, a, b)``, and the aggregates over every property
``sum(expression)`` and ``count()`` / ``count(condition)``. Nothing else: no attribute access,
no imports, no loops, no power; the length and the nesting depth of a formula are bounded.

The text is parsed with ``lark`` (a maintained LALR(1) parser generator, already a dependency
of the project): it gives exact column positions for every error, runs in linear time with no
recursion on the input, and nothing is ever handed to ``eval``. The parse tree is turned once
into the small typed tree of :mod:`.tree`, its types checked.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection
from decimal import Decimal

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from tid.rules.errors import InputError, field_error
from tid.rules.imposts.tree import (
    ANY,
    BOOL,
    FUNCTIONS,
    NUM,
    TEXT,
    Arith,
    Call,
    Compare,
    Formula,
    Logic,
    Name,
    Node,
    Not,
    Num,
    Operation,
    Text,
    Unary,
    collect_names,
    first_use,
    formula_error,
    tree_size,
    written_name,
)
from tid.rules.limits import MAX_FORMULA_TEXT
from tid.rules.messages import N_, Message, joined
from tid.rules.vocab.formula_names import formula_code

CITATION = N_("21 LPRA § 6653(3)(d)")

# Bounds of the language (technical limits, not statutory amounts).
MAX_FORMULA_LENGTH = MAX_FORMULA_TEXT
MAX_DEPTH = 64
MAX_NUMBER_DIGITS = 30
MAX_ROUND_PLACES = 10


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
NUMBER: /[0-9]+(\.[0-9]+)?|\.[0-9]+/
STRING: /"[^"\n]*"/ | /'[^'\n]*'/
NAME: /[A-Za-z_][A-Za-z0-9_]*/
%ignore /[ \t\r\n]+/
"""

_TERMINAL_WORDS = {
    "OR": "'or'",
    "AND": "'and'",
    "NOT": "'not'",
    "COMP": N_("a comparison"),
    "PLUS": "'+'",
    "MINUS": "'-'",
    "STAR": "'*'",
    "SLASH": "'/'",
    "LPAR": "'('",
    "RPAR": "')'",
    "COMMA": "','",
    "NUMBER": N_("a number"),
    "STRING": N_("text in quotes"),
    "NAME": N_("a name"),
    "$END": N_("the end of the formula"),
}


def _either(words: list[str]) -> str:
    """``')', ',', 'or'`` as a message: the last word joined in the reader's language (in
    Spanish "o", or "u" before a word said with an o)."""
    said = [Message(w) if not w.startswith("'") else w for w in words]
    if len(said) == 1:
        return said[0]
    first = joined(said[:-1], ", ")
    if words[-1].startswith("'o"):
        # TRANSLATORS: the last of a list of choices, a word said with an "o" (Spanish "u").
        return Message("%(first)s, %(last_o)s", first=first, last_o=said[-1])
    # TRANSLATORS: the last of a list of choices (Spanish "o").
    return Message("%(first)s, %(last)s", first=first, last=said[-1])


@functools.cache
def _parser() -> Lark:
    return Lark(_GRAMMAR, parser="lalr", propagate_positions=False, maybe_placeholders=False)


def compile_formula(
    text: str, *, parameters: Collection[str] = (), attributes: Collection[str] | None = None
) -> Formula:
    """21 LPRA § 6653(3)(d): check the ordinance's formula and list the names it uses.

    ``parameters`` are the ordinance's named parameters (e.g. ``budget``); every other name is
    an attribute of each property. Given ``attributes`` too, a name that is neither is an
    error here, with its position; otherwise it is found missing when evaluated.
    """
    if not text.strip():
        raise field_error("formula", Message("write the formula of the impost"))
    if len(text) > MAX_FORMULA_LENGTH:
        raise field_error(
            "formula",
            Message(
                "%(count)s characters is longer than the %(limit)s allowed",
                count=len(text),
                limit=MAX_FORMULA_LENGTH,
            ),
        )
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as err:
        raise _parse_error(text, err) from None
    _check_depth(text, tree)
    node = _convert(text, frozenset(parameters), tree)
    aggregates: list[Call] = []
    _check_types(text, node, NUM, inside_aggregate=False, aggregates=aggregates)
    names: list[str] = []
    collect_names(node, names)
    params = tuple(n for n in names if n in parameters)
    attrs = tuple(n for n in names if n not in parameters)
    if attributes is not None:
        for n in attrs:
            if n not in attributes:
                used = first_use(node, n)
                raise formula_error(
                    text,
                    used.start,
                    Message(
                        "unknown name %(name)s: not a parameter nor an attribute of the properties",
                        name=repr(written_name(used, n)),
                    ),
                )
    return Formula(text, node, tuple(names), params, attrs, tuple(aggregates), tree_size(node))


def _parse_error(text: str, err: UnexpectedInput) -> InputError:
    offset = err.pos_in_stream if err.pos_in_stream is not None else len(text)
    if isinstance(err, UnexpectedCharacters):
        return formula_error(
            text, offset, Message("unexpected character %(char)s", char=repr(text[offset]))
        )
    if isinstance(err, UnexpectedEOF):
        return formula_error(text, len(text), Message("the formula ends too early"))
    if isinstance(err, UnexpectedToken):
        token = err.token
        expected = sorted({_TERMINAL_WORDS.get(e, e) for e in err.expected})
        hint = (
            Message("expected %(choices)s", choices=_either(expected)) if len(expected) <= 6 else ""
        )
        if token.type == "$END":
            return formula_error(text, len(text), Message("the formula ends too early"), hint)
        offset = token.start_pos if token.start_pos is not None else offset
        return formula_error(
            text, offset, Message("unexpected %(token)s", token=repr(str(token))), hint
        )
    return formula_error(text, offset, Message("the formula cannot be read"))  # pragma: no cover


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
            raise formula_error(
                text,
                offset,
                Message("the formula nests more than %(depth)s levels deep", depth=MAX_DEPTH),
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


def _leaf(text: str, known: Collection[str], rule: str, token: Token) -> Node:
    """A number, a text in quotes or a name (a name in Spanish kept by its code)."""
    start, end = token.start_pos or 0, token.end_pos or 0
    if rule == "string":
        return Text(start, end, str(token)[1:-1])
    if rule == "name":
        written = str(token)
        # A name in Spanish reads the column or figure it stands for, unless the ordinance
        # has a parameter of that very name.
        code = written if written in known else formula_code(written)
        return Name(start, end, code, written)
    digits = str(token).replace(".", "")
    if len(digits) > MAX_NUMBER_DIGITS:
        raise formula_error(
            text,
            start,
            Message("a number of more than %(digits)s digits", digits=MAX_NUMBER_DIGITS),
        )
    return Num(start, end, Decimal(str(token)))


def _convert(text: str, known: Collection[str], tree: Tree[Token] | Token) -> Node:
    """The typed tree of a parse tree. Spans are taken from the tokens (the parser does not
    track positions, which would cost a third of its time): a node spans its tokens, and a
    parenthesized child counts with its parentheses. A name is kept by its code
    (``assessed_value`` for ``valor_tasado``), as written beside it, except a name ``known``
    as a parameter."""
    if isinstance(tree, Token):  # pragma: no cover - every token is wrapped by a rule
        raise formula_error(
            text, tree.start_pos or 0, Message("unexpected %(token)s", token=repr(str(tree)))
        )
    while tree.data == "atom":  # ( expression ): the parentheses only group
        tree = next(k for k in tree.children if isinstance(k, Tree))
    kids = tree.children
    rule = tree.data
    if rule in ("number", "string", "name"):
        return _leaf(text, known, rule, _token(kids[0]))
    if rule in ("unary", "not_"):
        op = _token(kids[0])
        operand = _convert(text, known, kids[1])
        start, end = op.start_pos or 0, _outer(kids[1], operand)[1]
        if rule == "not_":
            return Not(start, end, operand)
        return Unary(start, end, str(op), operand)
    if rule == "arith":  # the whole chain of one precedence, without recursing down it
        rest: list[Operation] = []
        link: Tree[Token] = tree
        while True:
            op = _token(link.children[1])
            rest.append(
                Operation(str(op), _convert(text, known, link.children[2]), op.start_pos or 0)
            )
            left = link.children[0]
            assert isinstance(left, Tree)
            if not _chains_on(link, 0, left):
                break
            link = left
        rest.reverse()
        first = _convert(text, known, left)
        start, end = _outer(left, first)[0], _outer(kids[2], rest[-1].operand)[1]
        return Arith(start, end, first, tuple(rest))
    if rule in ("compare", "logic"):
        left_node, right_node = _convert(text, known, kids[0]), _convert(text, known, kids[2])
        start, end = _outer(kids[0], left_node)[0], _outer(kids[2], right_node)[1]
        if rule == "compare":
            return Compare(start, end, str(kids[1]), left_node, right_node)
        return Logic(start, end, str(kids[1]).lower(), left_node, right_node)
    if rule == "call":
        name = _token(kids[0])
        start, end = name.start_pos or 0, _token(kids[-1]).end_pos or 0
        func = str(name).lower()
        if func not in FUNCTIONS:
            raise formula_error(
                text,
                start,
                Message("unknown function %(name)s", name=repr(str(name))),
                Message("known: %(functions)s", functions=", ".join(FUNCTIONS)),
            )
        args: tuple[Node, ...] = ()
        for kid in kids:
            if isinstance(kid, Tree) and kid.data == "arguments":
                args = tuple(_convert(text, known, a) for a in kid.children if isinstance(a, Tree))
        return Call(start, end, func, args)
    raise formula_error(  # pragma: no cover
        text, _first_offset(tree), Message("the formula cannot be read")
    )


def static_type(node: Node) -> str:
    if isinstance(node, Num | Unary | Arith):
        return NUM
    if isinstance(node, Text):
        return TEXT
    if isinstance(node, Compare | Logic | Not):
        return BOOL
    if isinstance(node, Call):
        if node.func == "if" and len(node.args) == 3:
            a, b = static_type(node.args[1]), static_type(node.args[2])
            return a if a == b else (a if b == ANY else b if a == ANY else ANY)
        return NUM
    return ANY  # a name: a number or text, known only from the property


def _check_types(
    text: str, node: Node, want: str, *, inside_aggregate: bool, aggregates: list[Call]
) -> None:
    """Refuse, with its position, what can never make sense: text in arithmetic, a number as
    a condition, a function with the wrong arguments."""
    have = static_type(node)
    if want != ANY and have not in (want, ANY):
        what = {NUM: N_("a number"), TEXT: N_("text"), BOOL: N_("a condition")}
        raise formula_error(
            text,
            node.start,
            Message(
                "%(wanted)s is needed here, not %(found)s",
                wanted=Message(what[want]),
                found=Message(what[have]),
            ),
        )
    if want == BOOL and isinstance(node, Name):
        raise formula_error(
            text,
            node.start,
            Message(
                "%(quoted)s is not a condition: compare it, like %(name)s > 0",
                quoted=repr(node.name),
                name=node.name,
            ),
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
            left, right = static_type(node.left), static_type(node.right)
            if BOOL in (left, right):
                raise formula_error(text, node.start, Message("conditions cannot be compared"))
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
            raise formula_error(
                text,
                node.start,
                Message(
                    "%(function)s() takes %(arguments)s", function=node.func, arguments=expected
                ),
            )

    if node.func in ("max", "min"):
        arity(n >= 1, Message("one or more numbers"))
        for a in node.args:
            check(a, NUM)
    elif node.func == "round":
        arity(n == 2, Message("a number and the decimal places, like round(x, 2)"))
        check(node.args[0], NUM)
        places = node.args[1]
        if (
            not isinstance(places, Num)
            or places.value != places.value.to_integral_value()
            or not 0 <= places.value <= MAX_ROUND_PLACES
        ):
            raise formula_error(
                text,
                places.start,
                Message(
                    "the decimal places of round() are a whole number from 0 to %(most)s",
                    most=MAX_ROUND_PLACES,
                ),
            )
    elif node.func == "if":
        arity(n == 3, Message("a condition and two values, like if(rooms > 100, a, b)"))
        check(node.args[0], BOOL)
        check(node.args[1], want if want != BOOL else NUM)
        check(node.args[2], want if want != BOOL else NUM)
        if TEXT in (static_type(node.args[1]), static_type(node.args[2])):
            raise formula_error(text, node.start, Message("the values of if() must be numbers"))
    else:  # sum, count
        if inside_aggregate:
            raise formula_error(
                text,
                node.start,
                Message("%(function)s() cannot be inside sum or count", function=node.func),
            )
        if node.func == "sum":
            arity(n == 1, Message("one expression, like sum(assessed_value)"))
            check(node.args[0], NUM, agg=True)
        else:
            arity(n <= 1, Message('nothing, or one condition, like count(kind == "hotel")'))
            if n:
                check(node.args[0], BOOL, agg=True)
        aggregates.append(node)
