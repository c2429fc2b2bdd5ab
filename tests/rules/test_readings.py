"""The project's published readings of the law (tid/rules/readings.py): each in English and
Spanish under a slug of its own, and every citation a parameter, a result or a warning can
carry names a statute's text or one of them — never a file the reader does not have."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.calc_documents import DOCUMENTS
from tests.rules.test_citations import STATUTES
from tests.rules.test_warnings_es import CASES, EXTRA
from tid.rules import params, readings
from tid.rules.calculators import run
from tid.rules.messages import TRANSLATIONS, Message, gettext_of, render

# Text a reader must never be sent to: the project's own notes.
UNPUBLISHED = re.compile(r"RULES\.md|reglas de la aplicaci[oó]n", re.IGNORECASE)
# Statutes a reading or a citation may name besides the supplied ones of test_citations.
OTHER_STATUTES = ("1 LPRA § 72", "Act 171-2009")
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def _spanish(msgid: str) -> str:
    return gettext_of("es")(msgid)


def _label(reading: readings.Reading, lang: str) -> str:
    return render(reading.note(), lang)


def test_every_reading_has_a_unique_slug_and_its_english_and_spanish_text() -> None:
    slugs = [r.slug for r in readings.READINGS.values()]
    assert len(slugs) == len(set(slugs)) >= 20
    titles = [r.title for r in readings.READINGS.values()]
    assert len(titles) == len(set(titles))
    for reading in readings.READINGS.values():
        assert SLUG.match(reading.slug), reading.slug
        assert reading.title and reading.text and reading.statutes, reading.slug
        # the project speaks for itself: in its own words, never its notes' file
        assert "project" in reading.text.lower(), reading.slug
        for msgid in (reading.title, reading.text):
            assert not UNPUBLISHED.search(msgid), reading.slug
            spanish = _spanish(msgid)
            assert spanish and spanish != msgid, f"{reading.slug}: {msgid!r} has no Spanish"
            assert not UNPUBLISHED.search(spanish), reading.slug
        for statute in reading.statutes:
            assert statute.startswith((*STATUTES, *OTHER_STATUTES)), (reading.slug, statute)
            assert re.search(r"§\s*\d|¶|, heading$", statute) or statute in STATUTES, statute
            assert _spanish(statute), statute
        assert readings.reading(reading.slug) is reading
        assert readings.named(reading.citation) is reading
    with pytest.raises(KeyError):
        readings.cite("no-such-reading")


@pytest.mark.parametrize("lang", ["en", "es"])
def test_no_readings_label_is_inside_another(lang: str) -> None:
    """A page finds a reading's label in a text to link it: no label may hide in another."""
    labels = [_label(r, lang) for r in readings.READINGS.values()]
    assert len(set(labels)) == len(labels)
    for label in labels:
        assert [other for other in labels if label in other] == [label]


def test_no_catalog_sends_the_reader_to_the_projects_notes() -> None:
    """Every text a user can read comes from the catalogs: none names RULES.md."""
    for path in (
        TRANSLATIONS / "messages.pot",
        TRANSLATIONS / "en" / "LC_MESSAGES" / "messages.po",
        TRANSLATIONS / "es" / "LC_MESSAGES" / "messages.po",
    ):
        found = [line for line in path.read_text("utf-8").splitlines() if UNPUBLISHED.search(line)]
        assert not found, f"{path.name}: {found[:3]}"


# --------------------------------------------------------------------------------------
# Every citation a parameter, a result or a warning carries


def _citation_problems(citation: str, where: str) -> list[str]:
    """A citation names, part by part, a statute's text or a published reading; a part
    that names a reading names one that exists."""
    problems = []
    if UNPUBLISHED.search(citation):
        problems.append(f"{where}: {citation!r} names the project's notes")
    sourced = False
    for part in citation.split("; "):
        if part.startswith(readings.PREFIX.strip()):
            if readings.named(part) is None:
                problems.append(f"{where}: {part!r} names no published reading")
            sourced = True
        elif part.startswith((*STATUTES, *OTHER_STATUTES)):
            sourced = True
        elif not sourced and not part.startswith(("the ordinance", "given in the input")):
            problems.append(f"{where}: {part!r} names neither a statute nor a reading")
    return problems


def _text_problems(english: str, spanish: str, where: str) -> list[str]:
    """A text that names readings (a warning, a parameter's note): each a published one,
    and the Spanish names it by its Spanish label (the page links it by that label)."""
    problems = []
    for text in (english, spanish):
        if UNPUBLISHED.search(text):
            problems.append(f"{where}: {text!r} names the project's notes")
    cited = readings.cited_in([english])
    if english.count(readings.PREFIX) != sum(english.count(r.citation) for r in cited):
        problems.append(f"{where}: {english!r} names a reading that is not published")
    for reading in cited:
        if _label(reading, "es") not in spanish:
            problems.append(f"{where}: the Spanish does not name {reading.slug!r}: {spanish!r}")
    return problems


def test_every_parameters_citation_names_a_statute_or_a_published_reading() -> None:
    problems: list[str] = []
    named = 0
    for entry in params.all_parameters():
        for value in entry["values"]:
            where = entry["name"]
            citation = value["citation"]
            problems += _citation_problems(citation, where)
            problems += _text_problems(citation, _spanish(params.catalog_id(citation)), where)
            if value.get("note"):
                note = value["note"]
                problems += _text_problems(note, _spanish(params.catalog_id(note)), where)
            named += len(readings.cited_in([citation, value.get("note") or ""]))
    assert named >= 8
    assert not problems, "\n".join(problems)


def _warnings_and_citations(result: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """Every ("citation", text) and ("warning", message) a result carries, at any depth."""
    if isinstance(result, dict):
        for k, v in result.items():
            if k == "warnings_es":
                continue
            yield from _warnings_and_citations(v, k)
    elif isinstance(result, list):
        for item in result:
            yield from _warnings_and_citations(item, key)
    elif isinstance(result, str) and key == "warnings":
        yield "warning", result
    elif isinstance(result, str) and key.endswith("citation"):
        yield "citation", result


def test_every_citation_and_warning_of_a_result_names_a_published_source() -> None:
    problems: list[str] = []
    cited: set[str] = set()
    documents = list(DOCUMENTS.items()) + list(CASES) + list(EXTRA)
    for name, document in documents:
        for kind, text in _warnings_and_citations(run(name, document)):
            where = f"{name} ({kind})"
            if kind == "citation":
                problems += _citation_problems(text, where)
            else:
                assert isinstance(text, Message), text
                problems += _text_problems(text, render(text, "es"), where)
            cited.update(r.slug for r in readings.cited_in([text]))
    # the results cite readings, of each calculator that relies on one
    assert {"saturday-deadlines", "same-day-liens", "seam-of-2003", "splits-to-the-cent"} <= cited
    assert len(cited) >= 15, sorted(cited)
    assert not problems, "\n".join(sorted(set(problems)))


def test_a_citation_naming_an_unpublished_reading_is_refused() -> None:
    """The checks above can fail: a made-up reading, or the project's notes, are found."""
    assert _citation_problems("21 LPRA § 6653(8); Project reading: Liens of any day", "x")
    assert _citation_problems("RULES.md § 1.5", "x")
    assert _citation_problems("Liens of the same day", "x")
    assert not _citation_problems("21 LPRA § 6653(8); " + readings.cite("same-day-liens"), "x")
    made_up = "Ranked so (Project reading: Liens of any day)."
    assert _text_problems(made_up, made_up, "x")
