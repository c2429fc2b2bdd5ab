"""The request class: no NUL character reaches a form or query value, nor a route.

No person types a NUL, no database column here may hold one (PostgreSQL refuses it), and a
value that carried one would turn a clear form error into a server error. A path with a NUL
in one of its segments names no page: :func:`refuse_nul_in_path` answers it 404 before any
view reads its parts.
"""

from __future__ import annotations

from flask import Request, abort, request
from werkzeug.datastructures import ImmutableMultiDict, MultiDict
from werkzeug.utils import cached_property


def _clean(values: MultiDict[str, str]) -> ImmutableMultiDict[str, str]:
    return ImmutableMultiDict(
        [
            (key.replace("\x00", ""), value.replace("\x00", ""))
            for key, value in values.items(multi=True)
        ]
    )


class CleanRequest(Request):
    @cached_property
    def args(self) -> ImmutableMultiDict[str, str]:
        return _clean(super().args)

    @cached_property
    def form(self) -> ImmutableMultiDict[str, str]:
        return _clean(super().form)


def refuse_nul_in_path() -> None:
    """Before every view: a path holding a NUL is not found."""
    if "\x00" in request.path:
        abort(404)
