"""A formula compiled for one set of parameters and properties.

Evaluation builds a tree of closures from the typed tree once and runs that over the
properties, so a formula is never re-parsed or re-walked per property; constant parts are
folded, the aggregates (``sum``, ``count``) computed once over every property. Arithmetic
runs in a 40-digit decimal context that traps invalid operations, division by zero and
overflow. The compiler also writes each property's explanation.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from decimal import (
    ROUND_HALF_EVEN,
    ROUND_HALF_UP,
    Context,
    Decimal,
    DivisionByZero,
    InvalidOperation,
    Overflow,
)
from typing import Any

from tid.rules.errors import InputError
from tid.rules.imposts.explanations import (
    ARITH_WORDS,
    COMPARE_WORDS,
    compose_text,
    fmt_number,
    label_of,
)
from tid.rules.imposts.language import static_type
from tid.rules.imposts.tree import (
    AGGREGATES,
    ANY,
    BOOL,
    COMPARE_OPS,
    NUM,
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
    child_nodes,
    position_of,
)
from tid.rules.limits import checkpoint
from tid.rules.messages import Message
from tid.rules.money import ZERO, parse_decimal

MAX_AMOUNT = Decimal(10) ** 20  # far above any impost; keeps cents exact within precision

CONTEXT = Context(
    prec=40, rounding=ROUND_HALF_EVEN, traps=[InvalidOperation, DivisionByZero, Overflow]
)


Value = Decimal | str | bool
Fn = Callable[[Mapping[str, Any]], Any]
MISSING = object()


class EvalError(Exception):
    """An error while evaluating one property, raised with the node at fault."""

    def __init__(self, offset: int, message: str, attribute: str | None = None) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message
        self.attribute = attribute


_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
}


_LITERALS = (Num, Text)


def _constant_fn(value: Value) -> Fn:
    return lambda p: value


class Compiler:
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
            varies = any([self.depends(c) for c in child_nodes(node)])
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
            except (EvalError, ArithmeticError):
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
        said = node.written or name
        if name in self.parameters:
            value = self.parameters[name]
            if want == NUM and not isinstance(value, Decimal):
                raise InputError(
                    f"parameters.{name}",
                    Message(
                        "parameters.%(name)s: %(value)s is not a number, and the formula uses "
                        "%(said)s as one at %(position)s",
                        name=name,
                        value=repr(value),
                        said=said,
                        position=self.formula.position(node),
                    ),
                )
            return lambda p: value
        offset = node.start
        if said != name:
            # A name in Spanish: the column it stands for, or an attribute of that very name.
            def attribute_either(p: Mapping[str, Any]) -> Any:
                value = p.get(name, MISSING)
                if value is MISSING:
                    value = p.get(said, MISSING)
                if want != NUM and value is not MISSING:
                    return value
                if value.__class__ is Decimal:
                    return value
                return _as_number(value, said, offset, name)

            return attribute_either

        def attribute_number(p: Mapping[str, Any]) -> Any:
            try:
                value = p[name]
            except KeyError:
                value = MISSING
            if value.__class__ is Decimal:
                return value
            return _as_number(value, name, offset)

        def attribute_value(p: Mapping[str, Any]) -> Any:
            value = p.get(name, MISSING)
            if value is MISSING:
                raise EvalError(offset, _unknown_name(name), name)
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
                raise EvalError(offset, _division_by_zero(divisor_text))
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
                    raise EvalError(offset, _division_by_zero(source))
                value = apply(value, operand)
            return value

        return chain

    def _compare(self, node: Compare) -> Fn:
        test = COMPARE_OPS[node.op]
        if node.op in ("==", "=", "!=", "<>"):
            left_type, right_type = static_type(node.left), static_type(node.right)
            side = left_type if left_type != ANY else right_type
            left, right = self.build(node.left, side), self.build(node.right, side)
            offset = node.start

            def equal(p: Mapping[str, Any]) -> bool:
                a, b = left(p), right(p)
                if a.__class__ is not b.__class__:
                    raise EvalError(
                        offset,
                        Message("compares %(left)s with %(right)s", left=_kind(a), right=_kind(b)),
                    )
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
                    except EvalError as err:
                        raise self.error(err, i, ids[i]) from None
                self.aggregates[id(node)] = total
            elif node.args:
                cond = self.build(node.args[0], BOOL)
                count = 0
                for i, p in enumerate(properties):
                    checkpoint()
                    try:
                        count += bool(cond(p))
                    except EvalError as err:
                        raise self.error(err, i, ids[i]) from None
                self.aggregates[id(node)] = Decimal(count)
            else:
                self.aggregates[id(node)] = Decimal(len(properties))

    def error(self, err: EvalError, index: int, property_id: str) -> InputError:
        field = f"properties[{index}]" + (f".{err.attribute}" if err.attribute else "")
        return InputError(
            field,
            Message(
                "property %(property)s: %(problem)s at %(position)s of the formula",
                property=property_id,
                problem=err.message,
                position=position_of(self.formula.text, err.offset),
            ),
        )

    # -- explanations: a function of the tree and one property's values --------------------

    def explain(self, node: Node, p: Mapping[str, Any]) -> tuple[str, int]:
        """The node in words and numbers, with its precedence (for parentheses): a message
        (or plain text for numbers and the formula's own text), said in any language."""
        if isinstance(node, Num):
            return fmt_number(node.value, literal=True), 9
        if isinstance(node, Text):
            return f'"{node.value}"', 9
        if isinstance(node, Name):
            return self._explain_name(node, p), 9
        if isinstance(node, Unary):
            inner, prec = self.explain(node.operand, p)
            inner = compose_text("(%(x)s)", x=inner) if prec < 8 else inner
            return (compose_text("−%(x)s", x=inner) if node.op == "-" else inner), 8
        if isinstance(node, Arith):
            return self._explain_arith(node, p)
        if isinstance(node, Compare | Logic):
            prec = 4 if isinstance(node, Compare) else {"or": 1, "and": 2}[node.op]
            left, lp = self.explain(node.left, p)
            right, rp = self.explain(node.right, p)
            left = compose_text("(%(x)s)", x=left) if lp < prec else left
            right = compose_text("(%(x)s)", x=right) if rp < prec else right
            if isinstance(node, Compare):
                template = "%(left)s " + COMPARE_WORDS[node.op] + " %(right)s"
                return compose_text(template, left=left, right=right), prec
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
            branch = compose_text("(%(x)s)", x=branch) if prec < 9 else branch
            if taken:
                return Message(
                    "%(value)s (as %(condition)s is true)", value=branch, condition=cond
                ), 9
            return Message("%(value)s (as %(condition)s is false)", value=branch, condition=cond), 9
        args = [self.explain(a, p)[0] for a in node.args]
        if node.func == "round":
            return Message("round(%(value)s, %(places)s)", value=args[0], places=args[1]), 9
        listed = compose_text(
            ", ".join(f"%(a{i})s" for i in range(len(args))),
            **{f"a{i}": a for i, a in enumerate(args)},
        )
        if node.func == "max":
            return Message("max(%(values)s)", values=listed), 9
        return Message("min(%(values)s)", values=listed), 9

    def _explain_name(self, node: Name, p: Mapping[str, Any]) -> str:
        value = self.parameters.get(node.name, p.get(node.name, MISSING))
        if value is MISSING and node.written:
            value = p.get(node.written, MISSING)
        label = label_of(node.name)
        if isinstance(value, str):
            return Message('%(name)s "%(text)s"', name=label, text=value)
        if isinstance(value, Decimal):
            shown = fmt_number(value)
            # Spanish joins an amount of money to its name with "de": "$31,500.00 de valor
            # tasado", but a count stays plain: "22 habitaciones".
            if "$" in shown:
                return Message("%(money)s %(name)s", money=shown, name=label)
            return Message("%(number)s %(name)s", number=shown, name=label)
        return label

    def _explain_arith(self, node: Arith, p: Mapping[str, Any]) -> tuple[str, int]:
        prec = 6 if node.rest[0].op in "+-" else 7
        text, first_prec = self.explain(node.first, p)
        parts = [compose_text("(%(x)s)", x=text) if first_prec < prec else text]
        template = "%(p0)s"
        for i, operation in enumerate(node.rest, start=1):
            text, rp = self.explain(operation.operand, p)
            strict = operation.op in "-/"
            wrap = rp < prec or (strict and rp == prec)
            parts.append(compose_text("(%(x)s)", x=text) if wrap else text)
            template += f" {ARITH_WORDS[operation.op]} %(p{i})s"
        return compose_text(template, **{f"p{i}": part for i, part in enumerate(parts)}), prec

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
            return Message(
                "%(total)s total %(name)s", total=fmt_number(value), name=label_of(arg.name)
            )
        return Message(
            "%(total)s total of %(expression)s",
            total=fmt_number(value),
            expression=self.formula.source(arg),
        )


def _kind(value: object) -> str:
    return Message("text") if isinstance(value, str) else Message("a number")


def _division_by_zero(divisor: str) -> str:
    return Message("division by zero (%(divisor)s is 0)", divisor=divisor)


def _unknown_name(said: str) -> str:
    return Message(
        "unknown name %(name)s: not a parameter nor an attribute of this property",
        name=repr(said),
    )


def _as_number(value: object, said: str, offset: int, code: str = "") -> Decimal:
    """An attribute's value as a number; ``said``: its name as the formula writes it
    (``code``: the column it stands for, when that is another)."""
    field = code or said
    if value is MISSING:
        raise EvalError(offset, _unknown_name(said), field)
    if isinstance(value, (bool, float)):
        raise EvalError(
            offset, Message('%(name)s must be written as text, like "120"', name=said), field
        )
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, str):
        try:
            return parse_decimal(value, said, allow_negative=True)
        except InputError:
            raise EvalError(
                offset,
                Message("%(name)s is %(value)s, not a number", name=said, value=repr(value)),
                field,
            ) from None
    if isinstance(value, Decimal):
        return value
    raise EvalError(offset, Message("%(name)s is not a number", name=said), field)
