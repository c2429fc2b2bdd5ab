"""Worked cases as TOML files (one per calculator): ``[[case]]`` with name, input, expect."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def load_cases(name: str) -> list[dict[str, Any]]:
    """The cases of ``<name>.toml``; each has a name, an input document and what to expect."""
    cases: list[dict[str, Any]] = tomllib.loads((HERE / f"{name}.toml").read_text("utf-8"))["case"]
    for case in cases:
        assert set(case) == {"name", "input", "expect"}, case.get("name")
    return cases


def assert_subset(actual: object, expected: object, path: str = "") -> None:
    """Every key of ``expected`` is in ``actual`` with the same value (lists item by item)."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), path
        for key, value in expected.items():
            assert key in actual, f"{path}.{key} missing"
            assert_subset(actual[key], value, f"{path}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), path
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_subset(a, e, f"{path}[{i}]")
    else:
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"
