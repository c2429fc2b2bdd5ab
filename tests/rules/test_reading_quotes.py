"""The published readings (/readings) quote the statutes word for word: every passage between
quotation marks, in English and in Spanish, is the text of a statute the reading reads — an
English statute in its English words in both languages, a Spanish one in its Spanish words.
A paraphrase is said without quotation marks.

Whitespace, the styles of quotation marks and apostrophes are made alike on both sides; an
ellipsis (``…`` or ``...``) splits a quote into parts, each of which must be in the statute,
in order."""

from __future__ import annotations

import re

import pytest

from tests.rules.test_citations import STATUTES, statute_text
from tid.rules import readings
from tid.rules.messages import gettext_of

# A quoted passage: “…”, «…» or "…" (single quotes are apostrophes too often to be quotes).
QUOTED = re.compile(r"“([^”]+)”|«([^»]+)»|\"([^\"]+)\"")
ELLIPSIS = re.compile(r"…|\.\.\.")
ALIKE = str.maketrans({"“": '"', "”": '"', "«": '"', "»": '"', "‘": "'", "’": "'"})


def _alike(text: str) -> str:
    return " ".join(text.translate(ALIKE).split())


def quotes(text: str) -> list[str]:
    """The passages ``text`` puts between quotation marks."""
    return [next(g for g in match.groups() if g is not None) for match in QUOTED.finditer(text)]


def quoted_in(quote: str, statute: str) -> bool:
    """Whether every part of ``quote`` (split at its ellipses) is in ``statute``, in order."""
    text, at = _alike(statute), 0
    for part in (_alike(p) for p in ELLIPSIS.split(quote)):
        if not part:
            continue
        found = text.find(part, at)
        if found < 0:
            return False
        at = found + len(part)
    return True


def _statute_files(reading: readings.Reading) -> list[str]:
    return [
        file
        for statute in reading.statutes
        for prefix, file in STATUTES.items()
        if statute.startswith(prefix)
    ]


def test_the_quote_checker_reads_ellipses_and_quote_styles() -> None:
    statute = "As of the year in which the Authority certifies to the “Company”, and during"
    assert quotes('a «b c» and “d” and "e"') == ["b c", "d", "e"]
    assert quoted_in('As of the year … certifies to the "Company", and', statute)
    assert not quoted_in("certifies … As of the year", statute)  # the parts out of order
    assert not quoted_in("from the fiscal year in which the Convention Center opens", statute)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_quote_of_a_reading_is_the_statutes_own_words(lang: str) -> None:
    said = gettext_of(lang)
    problems = []
    checked = 0
    for reading in readings.READINGS.values():
        files = _statute_files(reading)
        for msgid in (reading.title, reading.text):
            for quote in quotes(said(msgid)):
                checked += 1
                if not files:
                    problems.append(f"{reading.slug}: {quote!r} quotes no supplied statute")
                elif not any(quoted_in(quote, statute_text(file)) for file in files):
                    problems.append(f"{reading.slug}: {quote!r} is not in {', '.join(files)}")
    assert not problems, "\n".join(problems)
    assert checked >= 4, checked  # the readings that quote a statute
