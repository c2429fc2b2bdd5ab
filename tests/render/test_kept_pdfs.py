"""A PDF whose HTML was laid out before in this process is given again at once; another HTML
(another figure, another day) is laid out anew; the kept PDFs stay within their bytes."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tid.render import pdf


def test_the_same_html_is_laid_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []

    def lay_out(html: str, base: str) -> bytes:
        made.append(html)
        return f"%PDF {len(made)}".encode()

    monkeypatch.setattr(pdf, "_made", lay_out)
    monkeypatch.setattr(pdf, "_kept", pdf._Kept(1000))
    first = pdf.html_to_pdf("<p>Total $100.00</p>")
    assert pdf.html_to_pdf("<p>Total $100.00</p>") == first and len(made) == 1
    assert pdf.html_to_pdf("<p>Total $100.01</p>") != first and len(made) == 2
    assert pdf.html_to_pdf("<p>Total $100.00</p>", base_url="file:///elsewhere/") != first


def test_the_kept_pdfs_stay_within_their_bytes() -> None:
    kept = pdf._Kept(400)
    for i in range(10):
        kept.put(str(i), bytes(90))
    assert kept.size <= 400 and kept.get("0") is None and kept.get("9") is not None
    kept.put("huge", bytes(200))  # more than a quarter of the budget: not kept
    assert kept.get("huge") is None


def test_a_real_statement_pdf_made_twice_is_the_same_document() -> None:
    html = '<!doctype html><html lang="es"><title>Estado</title><p>Estado anual</p></html>'
    pdf._kept.clear()
    assert pdf.html_to_pdf(html) == pdf.html_to_pdf(html)


def test_a_pdf_asked_for_while_the_worker_warms_up_waits_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A web worker lays out a small page when it starts (WeasyPrint and the fonts load
    then); a PDF asked for meanwhile is laid out after it, never beside it."""
    made: list[str] = []
    monkeypatch.setattr(pdf, "_made", lambda html, base: made.append(html) or b"%PDF")
    monkeypatch.setattr(pdf, "_kept", pdf._Kept(1000))
    asked = threading.Thread(target=pdf.html_to_pdf, args=("<p>asked</p>",))
    with pdf._warming:  # a warm-up under way
        asked.start()
        asked.join(0.2)
        assert asked.is_alive() and made == []
    asked.join(5)
    assert made == ["<p>asked</p>"]
    pdf.warm()
    assert made[-1] == pdf._WARM_HTML


def test_a_web_worker_warms_up_and_tests_do_not(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from flask import Flask

    from tid import register_pdf_warm_up

    warmed: list[str] = []
    monkeypatch.setattr(pdf, "warm", lambda: warmed.append("warm"))
    testing = Flask("testing")
    testing.config["TESTING"] = True
    register_pdf_warm_up(testing)
    command_line = Flask("command_line")
    command_line.config["MADE_BY_COMMAND_LINE"] = True
    register_pdf_warm_up(command_line)
    assert not testing.before_request_funcs and command_line.before_request_funcs[None]
    assert warmed == []  # the command line's app warms up at its first request only
    # a web server's worker: at once (its templates: none here, the app's filters are not)
    # (The readers' statements are the scheduler's daily job: tests/web/account/test_prepared.py.)
    register_pdf_warm_up(Flask("served", template_folder=str(tmp_path)))
    for _ in range(6000):  # up to a minute on a busy machine
        if warmed:
            break
        threading.Event().wait(0.01)
    assert warmed == ["warm"]


def _counting(monkeypatch: pytest.MonkeyPatch, wait: float = 0.0) -> list[str]:
    """Lay out by a stand-in that counts its calls (and takes ``wait`` seconds)."""
    made: list[str] = []

    def lay_out(html: str, base: str) -> bytes:
        made.append(html)
        threading.Event().wait(wait)
        return f"%PDF {html}".encode()

    monkeypatch.setattr(pdf, "_made", lay_out)
    monkeypatch.setattr(pdf, "_kept", pdf._Kept(1000))
    return made


def test_a_pdf_on_the_shelf_is_given_to_another_worker_without_laying_it_out(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    made = _counting(monkeypatch)
    shelf = tmp_path / "prepared"
    first = pdf.html_to_pdf("<p>Total $100.00</p>", shelf=shelf)
    (kept,) = shelf.glob("*.pdf")
    assert kept.read_bytes() == first and kept.stat().st_mode & 0o777 == 0o600
    assert list(shelf.glob("*.part")) == []  # written whole, then named
    pdf._kept.clear()  # another worker: nothing in its memory
    assert pdf.html_to_pdf("<p>Total $100.00</p>", shelf=shelf) == first and len(made) == 1
    pdf._kept.clear()
    assert pdf.html_to_pdf("<p>Total $100.01</p>", shelf=shelf) != first and len(made) == 2


def test_a_pdf_being_laid_out_is_waited_for_not_laid_out_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Two workers asking for the same document at once: one lays it out, the other waits
    for it on the shelf's lock and reads it (each thread opens the lock on its own, as two
    processes do)."""
    made = _counting(monkeypatch, wait=0.5)
    got: list[bytes] = []

    def ask() -> None:
        got.append(pdf.html_to_pdf("<p>Estado anual</p>", shelf=tmp_path))

    workers = [threading.Thread(target=ask) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert made == ["<p>Estado anual</p>"] and got == [b"%PDF <p>Estado anual</p>"] * 3


def test_the_shelf_stays_within_its_bytes_dropping_the_least_recently_read(
    tmp_path: Path,
) -> None:
    import os

    shelf = pdf.Shelf(tmp_path, limit=800)
    for i, key in enumerate("abcdefgh"):
        shelf.put(key, bytes(100))
        os.utime(tmp_path / f"{key}.pdf", (1000 + i, 1000 + i))
    assert shelf.get("a") is not None  # read lately: now the newest
    shelf.put("i", bytes(100))  # 900 bytes: the least recently read goes
    assert shelf.get("b") is None
    assert all(shelf.get(key) is not None for key in "acdefghi")
    shelf.put("huge", bytes(101))  # more than an eighth of the shelf: not kept
    assert shelf.get("huge") is None and shelf.get("c") is not None
    # A document kept nowhere else (by its name: a run's draft manifest) is kept up to half
    # the shelf, the least recently read making room for it; past half, not even it.
    shelf.put("named", bytes(400), only_here=True)
    assert shelf.get("named") is not None
    assert sum(p.stat().st_size for p in tmp_path.glob("*.pdf")) <= 800
    shelf.put("larger", bytes(401), only_here=True)
    assert shelf.get("larger") is None


def test_a_document_kept_by_its_name_is_found_without_rendering_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A prepared document is kept by what it shows (its district's version, its day …):
    finding it renders nothing; another version is another document; one whose version moved
    while it was made goes to its reader and is not kept."""
    made = _counting(monkeypatch)
    shelf = tmp_path / "prepared"
    version = [1]
    rendered: list[int] = []

    def name() -> str:
        return f"statement 7 v{version[0]} 2025-26 es 2025-12-29"

    def html() -> str:
        rendered.append(version[0])
        return f"<p>version {version[0]}</p>"

    first = pdf.shelved_pdf(name, html, shelf=shelf)
    (kept,) = shelf.glob("*.pdf")
    assert kept.read_bytes() == first and kept.stat().st_mode & 0o777 == 0o600
    pdf._kept.clear()  # another worker: read from the shelf, nothing rendered
    assert pdf.shelved_pdf(name, html, shelf=shelf) == first
    assert rendered == [1] and len(made) == 1
    version[0] = 2  # a booking: the same name no longer finds the first
    second = pdf.shelved_pdf(name, html, shelf=shelf)
    assert second != first and rendered == [1, 2] and len(list(shelf.glob("*.pdf"))) == 2

    def html_while_booked() -> str:
        version[0] += 1  # committed while the HTML was read: the name moves under it
        return html()

    version[0] = 3
    moved = pdf.shelved_pdf(name, html_while_booked, shelf=shelf)
    assert moved == b"%PDF <p>version 4</p>" and len(list(shelf.glob("*.pdf"))) == 2
    # Not kept under version 3, which it does not show, nor under 4, which it was not asked as.
    version[0] = 3
    assert pdf.shelved_pdf(name, html, shelf=shelf) == b"%PDF <p>version 3</p>"
    assert rendered == [1, 2, 4, 3] and len(list(shelf.glob("*.pdf"))) == 3
