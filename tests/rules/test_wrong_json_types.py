"""Every field of every calculator refuses a value of the wrong JSON type by name: a list, an
object, a number, a string, true and null where they do not belong are an input error naming
the field (a 422 on the API, exit 2 on the command line), never a crash."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.calc_documents import DOCUMENTS
from tid.cli.calc import calc_command
from tid.rules import calculators
from tid.rules.errors import InputError

WRONG: tuple[object, ...] = (["x"], {"x": 1}, 7, "x", True, None)


def _fields(value: Any, path: str = "") -> Iterator[tuple[str, tuple[str | int, ...]]]:
    """Each field of a document, at every depth: its path as the errors name it, and its
    keys."""
    yield from _walk(value, path, ())


def _walk(
    value: Any, path: str, keys: tuple[str | int, ...]
) -> Iterator[tuple[str, tuple[str | int, ...]]]:
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{path}.{key}" if path else str(key)
            yield here, (*keys, key)
            yield from _walk(item, here, (*keys, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            here = f"{path}[{i}]"
            yield here, (*keys, i)
            yield from _walk(item, here, (*keys, i))


def _with(document: dict[str, Any], keys: tuple[str | int, ...], value: object) -> Any:
    changed = copy.deepcopy(document)
    target: Any = changed
    for key in keys[:-1]:
        target = target[key]
    target[keys[-1]] = copy.deepcopy(value)
    return changed


def _at(document: Any, keys: tuple[str | int, ...]) -> Any:
    for key in keys:
        document = document[key]
    return document


def _absent_error(name: str, keys: tuple[str | int, ...]) -> str | None:
    """The field the calculator names when the field is left out (None: it is accepted)."""
    changed = copy.deepcopy(DOCUMENTS[name])
    target: Any = changed
    for key in keys[:-1]:
        target = target[key]
    if isinstance(target, dict):
        del target[keys[-1]]
    try:
        calculators.run(name, changed)
    except InputError as exc:
        return exc.field
    return None


CASES = [
    (name, path, keys)
    for name in sorted(calculators.CALCULATORS)
    for path, keys in _fields(DOCUMENTS[name])
]


@pytest.mark.parametrize(("name", "path", "keys"), CASES, ids=[f"{n}:{p}" for n, p, _k in CASES])
def test_a_value_of_the_wrong_type_is_refused_naming_its_field(
    name: str, path: str, keys: tuple[str | int, ...]
) -> None:
    original = _at(DOCUMENTS[name], keys)
    for wrong in WRONG:
        if type(wrong) is type(original):
            continue  # a value of the field's own type (its checks are the calculator's tests)
        document = _with(DOCUMENTS[name], keys, wrong)
        try:
            calculators.run(name, document)
        except InputError as exc:
            if wrong is None and exc.field == _absent_error(name, keys):
                continue  # null is the field left out, refused as that is
            # The field itself, a field inside the value given (an object's unknown key, a
            # list's first row), or the row or list it stands in.
            named = exc.field
            assert named and (
                named == path
                or named.startswith((f"{path}.", f"{path}["))
                or path.startswith((f"{named}.", f"{named}["))
            ), (wrong, named, str(exc))


def test_a_lien_kind_as_a_list_or_an_object_is_exit_2_and_422(tmp_path: Path) -> None:
    for wrong in (["mortgage"], {"kind": "mortgage"}):
        document = _with(DOCUMENTS["liens"], ("liens", 0, "kind"), wrong)
        with pytest.raises(InputError) as caught:
            calculators.run("liens", document)
        assert caught.value.field == "liens[0].kind"
        (tmp_path / "liens.json").write_text(json.dumps(document), encoding="utf-8")
        result = CliRunner().invoke(calc_command, ["liens", str(tmp_path / "liens.json")])
        assert result.exit_code == 2, result.output
        assert json.loads(result.stderr.strip().splitlines()[-1])["field"] == "liens[0].kind"
