"""The QR code printed on a notice: the owner's portal with the notice number filled in.

Two drawings of the same code (segno, pure Python, a fixed mask so that thousands stay fast):
an SVG data URI for the documents WeasyPrint lays out (the flowing notice, the naive
baseline), and PDF drawing operators (one filled rectangle per run of dark modules) for the
fill layer of the fixed-layout notice (tid/render/notice.py), at ``QR_BOX``.
"""

from __future__ import annotations

import base64
import io
from typing import Any


def qr_svg_data_uri(url: str) -> str:
    """The QR code of ``url`` as an SVG data URI (segno: pure Python, drawn server-side)."""

    qr = _qr(url)
    buffer = io.BytesIO()
    qr.save(buffer, kind="svg", scale=1, border=4, omitsize=True, xmldecl=False, svgns=True)
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _qr(url: str) -> Any:
    """The QR code of ``url``. A fixed mask pattern (any of the eight is valid; choosing the
    "best" costs about ten times the rest of the encoding) keeps a run of thousands fast."""
    import segno

    return segno.make(url, error="m", micro=False, mask=4, boost_error=False)


# Where the fill layer's QR code goes on page 1 (points, from the top left; see notice.html).
QR_BOX = (360.0, 78.0, 70.0)


def qr_pdf_operators(url: str, page_height: float) -> bytes:
    """PDF drawing operators for the QR code of ``url`` in ``QR_BOX`` (default user space:
    origin at the bottom left): one filled rectangle per run of dark modules in a row."""
    qr = _qr(url)
    matrix = qr.matrix
    count = len(matrix) + 8  # the quiet zone of four modules on each side
    left, top, size = QR_BOX
    module = size / count
    ops = ["q 0 g"]
    for r, row in enumerate(matrix):
        y = page_height - top - (r + 5) * module
        c = 0
        width = len(row)
        while c < width:
            if row[c]:
                start = c
                while c < width and row[c]:
                    c += 1
                x = left + (start + 4) * module
                ops.append(f"{x:.3f} {y:.3f} {(c - start) * module:.3f} {module:.3f} re")
            else:
                c += 1
    ops.append("f Q")
    return "\n".join(ops).encode("ascii")
