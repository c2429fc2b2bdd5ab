"""The notices rendered: the pool's chunks, each notice split at its own pages, long texts
that flow onto more pages and keep every fact.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from tests.pdf_checks import pdf_pages, pdf_text
from tests.services.notices.helpers import sample_content
from tid.render import notice as notice_pdf


def test_the_pool_renders_chunks_and_splits_each_notice_at_its_own_pages() -> None:
    contents = [sample_content(i) for i in range(5)]
    # 2 workers: at least four chunks each so that the count moves while they render, but
    # never more chunks than notices (five of one); each counted as it is rendered.
    counted: list[tuple[int, int]] = []
    result = notice_pdf.render_notices(
        contents, workers=2, chunk_size=2, progress=lambda d, t: counted.append((d, t))
    )
    assert sum(result.chunk_sizes) == 5 and len(result.chunk_sizes) == 5
    assert [d for d, _t in counted] == [1, 2, 3, 4, 5] and {t for _d, t in counted} == {5}
    assert len(result.notices) == 5
    for i, rendered in enumerate(result.notices):
        text = pdf_text(rendered.pdf)
        assert f"2026-{i:06d}" in text
        assert all(f"2026-{j:06d}" not in text for j in range(5) if j != i)
        assert rendered.pages == 2
        assert rendered.sha256 == hashlib.sha256(rendered.pdf).hexdigest()
    assert pdf_pages(result.merged) == 10 == result.merged_pages


def test_a_long_explanation_takes_more_pages_and_the_print_file_keeps_notices_apart() -> None:
    long = notice_pdf.NoticeContent(
        **{**sample_content(0).__dict__, "explanation": "\n".join(f"line {i}" for i in range(120))}
    )
    result = notice_pdf.render_notices([long, sample_content(1)], workers=1)
    first, second = result.notices
    assert first.pages >= 3 and second.pages == 2
    assert "2026-000001" in pdf_text(second.pdf) and "line 119" in pdf_text(first.pdf)
    # Each notice starts on a right-hand page of the print file (blank filler if needed).
    assert result.merged_pages % 2 == 0
    assert result.merged_pages >= first.pages + second.pages


def test_texts_that_do_not_fit_the_fixed_layout_flow_and_keep_every_fact() -> None:
    fits = sample_content(0)
    # A name longer than its places (two lines in the table) takes the flowing layout; so
    # does right-to-left text, which needs pango's shaping.
    long_name = " ".join(["Łukasz Ωmega Ćwik"] * 12)
    odd = notice_pdf.NoticeContent(**{**sample_content(1).__dict__, "owner_name": long_name})
    assert notice_pdf.fits_fixed_layout(fits) and not notice_pdf.fits_fixed_layout(odd)
    arabic = notice_pdf.NoticeContent(
        **{**sample_content(2).__dict__, "owner_name": "محمد عبد الله"}
    )
    assert not notice_pdf.fits_fixed_layout(arabic)
    result = notice_pdf.render_notices([fits, odd], workers=1)
    for content, rendered in zip((fits, odd), result.notices, strict=True):
        text = pdf_text(rendered.pdf)
        naive = pdf_text(notice_pdf.render_one_naive(content))
        for fact in (
            content.number,
            content.owner_name,
            "$10.00",
            "30 de abril de 2026",
            "April 30, 2026",
            "ABCD-EFGH-JKMN",
            "gravamen legal tácito",
            "are not secured by this lien",
        ):
            assert fact in text and fact in naive, (content.number, fact)


def test_each_notice_is_counted_as_it_is_done_not_each_chunk() -> None:
    contents = [sample_content(i) for i in range(10)]
    # In this process, one chunk of ten: the count moves ten times, not once at its end.
    alone: list[tuple[int, int]] = []
    notice_pdf.render_notices(
        contents[:5], workers=1, chunk_size=5, progress=lambda d, t: alone.append((d, t))
    )
    assert alone == [(n, 5) for n in range(1, 6)]
    # In the pool, chunks of two: every notice counted once, as the renderers finish them.
    pooled: list[tuple[int, int]] = []
    result = notice_pdf.render_notices(
        contents, workers=2, chunk_size=2, progress=lambda d, t: pooled.append((d, t))
    )
    assert max(result.chunk_sizes) == 2
    assert pooled == [(n, 10) for n in range(1, 11)]


def test_a_process_lays_out_a_form_layer_once_for_every_owner_of_its_form(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Chunks of one batch (owners of their own, one form) lay the form layer out once in a
    renderer process; a batch of another form, and a fifth form past the few a process
    keeps, are laid out anew, and each chunk still prints its own owners on its form."""
    laid_out: list[str] = []
    real_html = notice_pdf.notices_html

    def counted(contents: Sequence[notice_pdf.NoticeContent], **kwargs: Any) -> str:
        if kwargs.get("mode") == "form":
            laid_out.append(contents[0].district_name)
        return real_html(contents, **kwargs)

    monkeypatch.setattr(notice_pdf, "notices_html", counted)
    notice_pdf._form_layout.cache_clear()

    def chunk(district: str, owners: range) -> list[str]:
        contents = [
            replace(sample_content(i), district_name=district, owner_name=f"Dueño {i}")
            for i in owners
        ]
        singles, _merged, _pages = notice_pdf.render_chunk(contents)
        return [pdf_text(pdf) for pdf in singles]

    first, second = chunk("Distrito", range(0, 2)), chunk("Distrito", range(2, 4))
    assert laid_out == ["Distrito"]  # the second chunk's owners reused the first's form
    for i, text in enumerate(first + second):
        assert f"Dueño {i}" in text and "Distrito" in text
        assert all(f"Dueño {j}" not in text for j in range(4) if j != i)
    other = chunk("Otro distrito", range(4, 5))
    assert laid_out == ["Distrito", "Otro distrito"] and "Otro distrito" in other[0]
    chunk("Distrito", range(5, 6))
    assert laid_out == ["Distrito", "Otro distrito"]
    for k in range(notice_pdf._FORMS_KEPT):
        chunk(f"Distrito {k}", range(6, 7))
    chunk("Distrito", range(7, 8))  # pushed out by the four after it: laid out again
    assert laid_out.count("Distrito") == 2 and notice_pdf._form_layout.cache_info().currsize == 4
    notice_pdf._form_layout.cache_clear()  # laid out with the counting HTML: none kept after
