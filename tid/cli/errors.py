"""How a command of ``tid`` refuses its input: the error as one JSON object on standard error,
exit status 2 (docs/calculators.md)."""

from __future__ import annotations

import json
import sys
from typing import Any

from tid.rules.errors import InputError


def fail(exc: InputError) -> Any:
    """Exit 2 with the error as one JSON object on standard error (docs/calculators.md)."""
    sys.stderr.write(json.dumps(exc.as_json(), ensure_ascii=False) + "\n")
    sys.exit(2)
