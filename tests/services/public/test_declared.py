"""The declaration of public fields: nothing private is declared, and a view keeps only what is."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tid.services.public.declared import (
    NEVER_PUBLIC,
    PUBLIC_FIELDS,
    UndeclaredKindError,
    public_view,
)


def test_no_declared_kind_names_a_private_field() -> None:
    for kind, fields in PUBLIC_FIELDS.items():
        assert not fields & NEVER_PUBLIC, kind


def test_a_view_keeps_only_the_declared_fields() -> None:
    @dataclass
    class Row:
        id: int
        name: str
        owner_name: str

    assert public_view("municipality", Row(1, "Condado", "Juan del Pueblo")) == {
        "id": 1,
        "name": "Condado",
    }
    assert public_view("municipality", {"id": 2, "name": "Ponce", "email": "x@y"}) == {
        "id": 2,
        "name": "Ponce",
    }


def test_an_undeclared_kind_and_a_missing_field_fail_loudly() -> None:
    with pytest.raises(UndeclaredKindError):
        public_view("user", {"id": 1})
    with pytest.raises(KeyError):
        public_view("municipality", {"id": 1})
