"""The notice's "how to pay" keeps the lines the association wrote, on both pages, in the
fixed layout and in the flowing one."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.render.test_notice_pages import CONTENT, FLOWING, _pages
from tid.render import notice as notice_pdf

ES_LINES = ("En línea: pagos.condado.pr", "Cheque a la Asociación", "Oficina: Ave. Ashford 1020")
EN_LINES = ("Online: pagos.condado.pr", "Check to the Association", "Office: Ave. Ashford 1020")


@pytest.mark.parametrize("base", [CONTENT, FLOWING], ids=["fixed", "flowing"])
def test_how_to_pay_keeps_its_lines(base: notice_pdf.NoticeContent) -> None:
    content = replace(base, how_to_pay="\n".join(ES_LINES), how_to_pay_en="\n".join(EN_LINES))
    assert notice_pdf.fits_fixed_layout(content) is (base is CONTENT)
    for page, lines in zip(_pages(content), (ES_LINES, EN_LINES), strict=True):
        read = [" ".join(line.split()) for line in page.splitlines()]
        for line in lines:
            assert line in read, (line, read)
