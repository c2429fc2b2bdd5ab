"""A calculator's JSON document read, or refused with where it breaks."""

from __future__ import annotations

import json
from typing import Any

from tid.rules.errors import InputError


class DocumentError(InputError):
    """A document that is not readable JSON; ``line`` is where the syntax breaks (0 when the
    document is too deep or a number too long to read)."""

    def __init__(self, message: str, problem: str, line: int = 0) -> None:
        super().__init__("", message)
        self.problem = problem
        self.line = line


def load_json(text: str) -> Any:
    """The JSON document in ``text``, or a :class:`DocumentError` saying why not: invalid
    JSON, nesting too deep for the parser, or a whole number of thousands of digits are all
    refused the same way, never with a traceback."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(
            f"The document is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}.",
            exc.msg,
            exc.lineno,
        ) from None
    except RecursionError:
        message = "The document nests too deeply to be read."
        raise DocumentError(message, message) from None
    except ValueError:  # a whole number of more than 4,300 digits
        message = "The document holds a number with more digits than any here."
        raise DocumentError(message, message) from None
