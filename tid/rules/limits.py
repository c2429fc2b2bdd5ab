"""What one calculator document may ask of the server: bounds checked before any work.

The calculators are public (docs/calculators.md): anyone may send them a document through the
API, a form or a CSV upload. Every one of them costs time in proportion to its document, and
these bounds keep that document to the size of the largest real case (a fiscal year has
twelve months, Puerto Rico 78 municipalities, a district's roll a few thousand properties in
one request). A document past a bound is refused at once, naming the field and the bound.

The last line of defence is :func:`checkpoint`: the loops whose length follows the document
call it, and a caller that wants a time budget installs a hook with :func:`watched` that
raises :class:`TimeBudgetError` once the budget is spent. The core keeps no clock: the
hook is the caller's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from tid.rules.errors import InputError, field_error
from tid.rules.messages import N_, FieldRef, Message

# The largest JSON body read by the API and the forms' pasted documents.
MAX_DOCUMENT_BYTES = 1_000_000
# Lists: the most items one document may hold, by the list's name.
MAX_ITEMS = {
    "months": 12,  # one fiscal year
    "municipalities": 100,  # Puerto Rico has 78
    "liens": 200,
    "properties": 5_000,  # as many as one CSV upload holds
}
MAX_OTHER_ITEMS = 100  # any other list
MAX_KEYS = 100  # the fields of one object (a property's attributes, a map of collections)
MAX_NESTING = 8  # objects and lists inside each other
MAX_TEXT = 1_000  # characters of any text but the formula
MAX_FORMULA_TEXT = 10_000  # characters of an impost formula (tid.rules.imposts)
MAX_INTEGER = 10**9  # a JSON whole number (``nights``); amounts are text and bounded apart
# The impost's work: properties × the formula's nodes (each is evaluated and explained).
MAX_IMPOST_WORK = 500_000


def _refuse(field: str, message: Message) -> InputError:
    """``field: message``, the whole document named "document"."""
    return InputError(
        field, Message("%(field)s: %(reason)s", field=FieldRef(field or "document"), reason=message)
    )


def check_document(document: object) -> None:
    """Refuse, before any work, a document past one of the bounds above (an
    :class:`InputError` naming the field and the bound). Iterative: no nesting can exhaust
    the interpreter's recursion limit."""
    stack: list[tuple[object, str, int, str]] = [(document, "", 0, "")]
    while stack:
        value, path, depth, key = stack.pop()
        if depth > MAX_NESTING:
            raise _refuse(
                path, Message(N_("nested more than %(most)s levels deep"), most=MAX_NESTING)
            )
        if isinstance(value, Mapping):
            if len(value) > MAX_KEYS:
                raise _refuse(
                    path,
                    Message(
                        N_("more than %(most)s fields (%(count)s)"),
                        most=f"{MAX_KEYS:,}",
                        count=f"{len(value):,}",
                    ),
                )
            for name, item in value.items():
                name = str(name)
                if len(name) > MAX_TEXT:
                    raise _refuse(
                        path,
                        Message(
                            N_("a field name longer than %(most)s characters"), most=f"{MAX_TEXT:,}"
                        ),
                    )
                child = f"{path}.{name}" if path else name
                stack.append((item, child, depth + 1, name))
        elif isinstance(value, list):
            most = MAX_ITEMS.get(key, MAX_OTHER_ITEMS)
            if len(value) > most:
                raise _refuse(
                    path,
                    Message(
                        N_("at most %(most)s items in one document (this one has %(count)s)"),
                        most=f"{most:,}",
                        count=f"{len(value):,}",
                    ),
                )
            stack.extend((item, f"{path}[{i}]", depth + 1, "") for i, item in enumerate(value))
        elif isinstance(value, str):
            most = MAX_FORMULA_TEXT if path == "formula" else MAX_TEXT
            if len(value) > most:
                raise _refuse(
                    path,
                    Message(
                        N_("text longer than %(most)s characters (%(count)s)"),
                        most=f"{most:,}",
                        count=f"{len(value):,}",
                    ),
                )
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, int):
            if abs(value) > MAX_INTEGER:
                raise _refuse(
                    path,
                    Message(N_("a whole number larger than %(most)s"), most=f"{MAX_INTEGER:,}"),
                )
        elif isinstance(value, float):
            # Amounts are refused as JSON numbers by each calculator; a float that is not
            # even finite (1e999) is refused here, before anything reads it.
            if not math.isfinite(value):
                raise _refuse(path, Message(N_("not a finite number")))
        else:
            raise _refuse(path, Message(N_("not a JSON value")))


def check_impost_work(properties: int, nodes: int) -> None:
    """Refuse an impost document whose properties × formula nodes pass ``MAX_IMPOST_WORK``."""
    if properties * nodes > MAX_IMPOST_WORK:
        raise field_error(
            "properties",
            Message(
                N_(
                    "%(properties)s properties × %(nodes)s parts of the formula is more work "
                    "than one request may ask (%(max_impost_work)s); send fewer properties at"
                    " a time"
                ),
                properties=f"{properties:,}",
                nodes=f"{nodes:,}",
                max_impost_work=f"{MAX_IMPOST_WORK:,}",
            ),
        )


# ---------------------------------------------------------------------------------------------
# The time budget


class TimeBudgetError(Exception):
    """A calculation ran past the time its caller allowed, and was stopped."""


_hook: ContextVar[Callable[[], None] | None] = ContextVar("tid_checkpoint", default=None)


def checkpoint() -> None:
    """Called by the loops whose length follows the document: the caller's hook may stop
    the calculation here (by raising :class:`TimeBudgetError`)."""
    hook = _hook.get()
    if hook is not None:
        hook()


@contextmanager
def watched(hook: Callable[[], None]) -> Iterator[None]:
    """Run the block with ``hook`` called at every :func:`checkpoint`."""
    token = _hook.set(hook)
    try:
        yield
    finally:
        _hook.reset(token)
