"""The picture of the house (docs/architecture.md, "How it is built") names every package of
``tid/``: a new package is drawn there when it is made."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _house() -> str:
    return (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def test_the_readme_names_every_package() -> None:
    house = _house()
    packages = sorted(p.parent for p in (ROOT / "tid").rglob("__init__.py"))
    unnamed = [
        str(p.relative_to(ROOT))
        for p in packages
        if f"{p.name}/" not in house and f"{p.relative_to(ROOT)}/" not in house
    ]
    assert unnamed == []
