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
    register_pdf_warm_up(Flask("served", template_folder=str(tmp_path)))
    for _ in range(6000):  # up to a minute on a busy machine
        if warmed:
            break
        threading.Event().wait(0.01)
    assert warmed == ["warm"]
