"""Files for the legislature's file tests: a PDF with words in its text layer, a DOCX and an
ODT with words, a scan, and the hostile ones (JavaScript, an embedded file, a launch
action, a password, a damaged PDF, a ZIP that unpacks to far more than it weighs)."""

from __future__ import annotations

import io
import zipfile

from tid.demo.legislature_documents import written_pdf


def pdf(text: str = "Informe de la comisión", *, extra: str = "", catalog_extra: str = "") -> bytes:
    """A one-page PDF whose text layer says ``text`` (Latin-1 characters)."""
    stream = f"BT /F1 14 Tf 72 720 Td ({text}) Tj ET".encode("latin-1")
    objects = [
        f"<< /Type /Catalog /Pages 2 0 R {catalog_extra}>>".encode(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    if extra:
        objects.append(extra.encode())
    return written_pdf(objects)


def pdf_with_javascript() -> bytes:
    return pdf(catalog_extra="/OpenAction 6 0 R ", extra="<< /S /JavaScript /JS (app.alert(1)) >>")


def pdf_with_launch() -> bytes:
    return pdf(catalog_extra="/OpenAction 6 0 R ", extra="<< /S /Launch /F (calc.exe) >>")


def pdf_with_embedded_file() -> bytes:
    return pdf(
        catalog_extra="/Names << /EmbeddedFiles << /Names [(a.exe) 6 0 R] >> >> ",
        extra="<< /Type /Filespec /F (a.exe) >>",
    )


def encrypted_pdf() -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(io.BytesIO(pdf())).pages:
        writer.add_page(page)
    writer.encrypt(user_password="secreto", owner_password="dueño", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def broken_pdf() -> bytes:
    return b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj\n" + b"\x00garbage" * 50


def _zip(entries: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return out.getvalue()


def docx(text: str = "Plano de las mejoras") -> bytes:
    body = (
        '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.'
        'openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>'
        f"{text}</w:t></w:r></w:p></w:body></w:document>"
    )
    return _zip(
        {
            "[Content_Types].xml": b'<?xml version="1.0"?><Types/>',
            "word/document.xml": body.encode(),
        }
    )


def odt(text: str = "Carta del municipio") -> bytes:
    content = (
        "<office:document-content><office:body>"
        f"<text:p>{text}</text:p></office:body></office:document-content>"
    )
    return _zip(
        {"mimetype": b"application/vnd.oasis.opendocument.text", "content.xml": content.encode()}
    )


def docx_bomb(megabytes: int = 300) -> bytes:
    """A DOCX of a few hundred KB whose document unpacks to ``megabytes`` MB of spaces."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", b"<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as fh:
            block = b" " * 2**20
            for _ in range(megabytes):
                fh.write(block)
    return out.getvalue()


def png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (60, 80), "white").save(out, "PNG")
    return out.getvalue()


def scanned_pdf(lines: tuple[str, ...] = ("Acta del alcantarillado", "Condado")) -> bytes:
    """A one-page PDF of a picture of ``lines`` at 200 dpi, with no text layer: a scan."""
    from PIL import Image, ImageDraw, ImageFont

    picture = Image.new("L", (1000, 110 + 80 * len(lines)), 255)
    draw = ImageDraw.Draw(picture)
    try:
        face: object = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 48)
    except OSError:
        face = ImageFont.load_default(48)
    for row, line in enumerate(lines):
        draw.text((50, 50 + 80 * row), line, fill=0, font=face)  # type: ignore[arg-type]
    out = io.BytesIO()
    picture.save(out, "PDF", resolution=200)
    return out.getvalue()


def pdf_of_many_lines(operations: int = 3_000_000) -> bytes:
    """A one-page PDF of a few tens of KB whose compressed page holds ``operations`` line
    drawings: it passes the checks at once, and drawing its page takes seconds."""
    import zlib

    stream = zlib.compress(b"0 0 m 612 792 l S\n" * operations, 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    return written_pdf(objects)


def docx_of_words(megabytes: int = 20) -> bytes:
    """A DOCX of some tens of KB whose document is ``megabytes`` MB of paragraphs: within the
    unpacked bound of an upload, far over a small reader's memory."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", b'<?xml version="1.0"?><Types/>')
        with archive.open("word/document.xml", "w", force_zip64=True) as fh:
            fh.write(b"<w:document><w:body>")
            row = b"<w:p><w:r><w:t>palabra</w:t></w:r></w:p>" * 1000
            for _ in range(megabytes * 2**20 // len(row)):
                fh.write(row)
            fh.write(b"</w:body></w:document>")
    return out.getvalue()
