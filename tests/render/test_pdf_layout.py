"""How documents are laid out: WeasyPrint's user-agent stylesheet with its pseudo-element
rules scoped to where they occur (the rest is WeasyPrint's, and lists keep their markers),
and Python's collector paused while a layout is under way, then as it was."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import weasyprint

from tests.pdf_checks import pdf_layout_text
from tid.render import pdf

WEASYPRINT_UA = (Path(weasyprint.__file__).parent / "css" / "html5_ua.css").read_text("utf-8")


def test_only_the_universal_pseudo_element_rules_change() -> None:
    # the stylesheet is given where WeasyPrint asks for it, for the documents' HTML
    assert "_ua_stylesheets" in vars(weasyprint.HTML)
    ours = pdf._html()(string="<p>x</p>")._ua_stylesheets()
    assert len(ours) == 1 and ours != weasyprint.HTML(string="<p>x</p>")._ua_stylesheets()
    scoped = pdf._documents_ua_css(WEASYPRINT_UA).splitlines()
    assert not [line for line in scoped if line.startswith("::")]
    assert "li::marker, summary::marker { font-variant-numeric: tabular-nums;" in "\n".join(scoped)
    dropped = set(WEASYPRINT_UA.splitlines()) - set(scoped)
    assert dropped and all(line.startswith("::") for line in dropped)
    assert [line for line in scoped if not line.startswith("li::marker")] == [
        line for line in WEASYPRINT_UA.splitlines() if not line.startswith("::")
    ]


def test_a_document_reads_as_weasyprint_alone_lays_it_out() -> None:
    html = (
        '<!doctype html><html lang="es"><title>Lista</title><body>'
        "<h1>Estado</h1><ol><li>Primera cláusula</li><li>Segunda cláusula</li></ol>"
        "<ul><li>Un punto</li></ul><p>Texto<br>en dos líneas</p>"
        "<table><thead><tr><th>Partida</th><th>Monto</th></tr></thead>"
        "<tr><td>Recaudos</td><td>$30,570.04</td></tr></table></body></html>"
    )
    ours = pdf_layout_text(pdf._made(html, pdf.static_base_url()))
    alone = pdf_layout_text(weasyprint.HTML(string=html).write_pdf())
    assert ours == alone
    lines = [" ".join(line.split()) for line in ours.splitlines()]
    assert "1. Primera cláusula" in lines and "2. Segunda cláusula" in lines
    assert "• Un punto" in lines and "Texto" in lines and "en dos líneas" in lines


def test_the_collector_is_paused_while_laying_out_then_as_it_was() -> None:
    seen: list[bool] = []
    assert gc.isenabled()
    with pdf._collector_paused():
        seen.append(gc.isenabled())
        with pdf._collector_paused():  # another layout at the same time
            seen.append(gc.isenabled())
        seen.append(gc.isenabled())  # the first is still under way
    assert seen == [False, False, False] and gc.isenabled()

    gc.disable()  # turned off by someone else: left off
    try:
        with pdf._collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_runs_again_after_a_layout_that_failed() -> None:
    try:
        with pdf._collector_paused():
            raise ValueError("a broken template")
    except ValueError:
        pass
    assert gc.isenabled()


def test_layouts_in_two_threads_leave_the_collector_on() -> None:
    inside = threading.Barrier(2)

    def lay_out() -> None:
        with pdf._collector_paused():
            inside.wait(60)

    threads = [threading.Thread(target=lay_out) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert gc.isenabled()
