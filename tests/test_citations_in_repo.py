"""Every citation a maintainer or a reader meets can be followed inside the repository: a
statute by its official citation, the project's own decisions by their anchor on the
readings page (``/readings#`` and the reading's slug, published from
``tid/rules/readings.py``), the calculators' JSON interface by its page
(``docs/calculators.md``). No file of the project points to a document that is not in it."""

from __future__ import annotations

import re
from pathlib import Path

from tid.rules.readings import READINGS

ROOT = Path(__file__).resolve().parent.parent
PLACES = ("tid", "templates", "migrations", "docs", "benchmarks", "deploy", "tests")
FILES = ("README.md", "Makefile", "mkdocs.yml", "pyproject.toml")
ENDINGS = {".py", ".html", ".toml", ".md", ".txt", ".po", ".pot", ".yml", ".cfg", ".mako", ""}
# Documents that live outside the repository, by the names they go by.
OUTSIDE = re.compile(r"RULES\.md|RULES §|CALCULATORS\.md|shared/statutes|\.\./shared")
# The tests that read the statutes' texts where they are kept beside a clone (tests may, the
# project may not), and those that check the names above are nowhere a reader sees them.
NAMING_THEM = {
    "tests/test_citations_in_repo.py",
    "tests/rules/test_citations.py",
    "tests/rules/test_readings.py",
}
# A line asserting that such a name is absent ("RULES.md" not in page) cites nothing.
ABSENT = re.compile(r"\bnot in\b|\bnot any\(")
READING = re.compile(r"/readings#([a-z0-9-]+)")
DOC_PAGE = re.compile(r"docs/([a-z0-9-]+\.md)")


def _texts() -> list[tuple[str, str]]:
    found = [(name, (ROOT / name).read_text(encoding="utf-8")) for name in FILES]
    for place in PLACES:
        for path in sorted((ROOT / place).rglob("*")):
            if path.is_file() and path.suffix in ENDINGS and "__pycache__" not in path.parts:
                found.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")))
    return found


def test_nothing_cites_a_document_outside_the_repository() -> None:
    cited = [
        f"{name}:{n}"
        for name, text in _texts()
        if name not in NAMING_THEM
        for n, line in enumerate(text.splitlines(), 1)
        if OUTSIDE.search(line) and not ABSENT.search(line)
    ]
    assert cited == []


def test_every_reading_and_page_cited_exists() -> None:
    missing = sorted(
        {
            f"{name}: /readings#{slug}"
            for name, text in _texts()
            for slug in READING.findall(text)
            if slug not in READINGS
        }
        | {
            f"{name}: docs/{page}"
            for name, text in _texts()
            for page in DOC_PAGE.findall(text)
            if not (ROOT / "docs" / page).exists()
        }
    )
    assert missing == []
