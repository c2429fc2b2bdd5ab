"""The demo's legislature files: the Condado petition's documents (the petition, the owners'
signatures as a scan, the plan as a DOCX, the committee's report), read for the search at
once; and, for the search benchmark, any number of generated documents
(``tid demo --documents N``, 10,000 with ``--large``)."""

from __future__ import annotations

import io
import random
import time
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlmodel import Session, col, func, select

from tid.config import archive_dir, document_max_bytes
from tid.demo.base import DEMO_ACTOR
from tid.demo.petitions import CONDADO, ISLA_VERDE
from tid.models import DocumentVersion, Petition, PetitionDocument
from tid.services.petitions import attachments, file_search

GENERATED_TITLE = "Documento generado"


def written_pdf(objects: list[bytes]) -> bytes:
    """A PDF file of ``objects`` (numbered from 1, the first the catalog), with its
    cross-reference table and trailer."""
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    start = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(objects) + 1))
    out.write(b"startxref\n%d\n%%%%EOF\n" % start)
    return out.getvalue()


def text_pdf(lines: list[str]) -> bytes:
    """A small PDF whose text layer holds ``lines`` (Latin-1), one page."""
    shown = " T* ".join(
        "(" + line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ") Tj"
        for line in lines
    )
    stream = f"BT /F1 11 Tf 14 TL 60 740 Td {shown} ET".encode("latin-1", "replace")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    return written_pdf(objects)


def text_docx(paragraphs: list[str]) -> bytes:
    """A DOCX holding ``paragraphs``."""
    body = "".join(
        f"<w:p><w:r><w:t>{p.replace('&', '&amp;').replace('<', '&lt;')}</w:t></w:r></w:p>"
        for p in paragraphs
    )
    document = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        f"<w:body>{body}</w:body></w:document>"
    )
    types = (
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
        'package/2006/content-types"><Override PartName="/word/document.xml" ContentType='
        '"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
        "</Types>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", types)
        archive.writestr("word/document.xml", document)
    return out.getvalue()


def scan_png() -> bytes:
    """A page of signatures as a scan would give it: a picture without a text layer (its
    printed heading is pixels, which the clerk can make searchable)."""
    from PIL import Image, ImageDraw, ImageFont

    picture = Image.new("L", (850, 1100), 250)
    draw = ImageDraw.Draw(picture)
    try:  # the faces the notices embed (make installs them); else Pillow's own
        heading: Any = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 30)
    except OSError:
        heading = ImageFont.load_default(30)
    draw.text((70, 60), "Firmas de los dueños de propiedades", fill=20, font=heading)
    draw.text((70, 105), "Endosamos la creación del distrito de Condado", fill=20, font=heading)
    for row in range(12):
        y = 220 + row * 70
        draw.line((80, y, 770, y), fill=120)
        draw.arc((120 + row * 18, y - 44, 400 + row * 14, y + 8), 200, 340, fill=30, width=3)
    out = io.BytesIO()
    picture.save(out, "PNG", dpi=(100, 100))
    return out.getvalue()


def _store(config: Mapping[str, Any]) -> attachments.Store:
    return attachments.Store(archive_dir(config), document_max_bytes(config))


def _petition(session: Session, name: str) -> Petition | None:
    return session.exec(select(Petition).where(Petition.district_name == name)).first()


CONDADO_FILES: tuple[tuple[str, str, str, Callable[[], bytes], bool], ...] = (
    (
        "petition",
        "Petición del alcalde",
        "peticion.pdf",
        lambda: text_pdf(
            [
                "Petición del Alcalde de San Juan a la Legislatura Municipal",
                "para establecer el Distrito de Mejoramiento Turístico de Condado.",
                "Información sobre los comerciantes y las propiedades del área.",
            ]
        ),
        True,
    ),
    ("signatures", "Firmas de los dueños", "firmas.png", scan_png, False),
    (
        "plan",
        "Plan de mejoras",
        "plan-de-mejoras.docx",
        lambda: text_docx(
            [
                "Plan de mejoras del distrito",
                "Aceras, alumbrado y paisajismo de la avenida Ashford.",
                "Seguridad y limpieza de las playas.",
            ]
        ),
        True,
    ),
)


def load_petition_files(session: Session, config: Mapping[str, Any]) -> None:
    """The Condado petition's documents (once), read for the search at once."""
    petition = _petition(session, CONDADO)
    if petition is None or petition.id is None:
        return
    have = session.exec(
        select(func.count()).where(PetitionDocument.petition_id == petition.id)
    ).one()
    if have:
        return
    store = _store(config)
    for kind, title, filename, make, public in CONDADO_FILES:
        document = attachments.attach(
            session=session,
            actor=DEMO_ACTOR,
            petition=petition,
            store=store,
            upload=attachments.Upload(make(), filename),
            title=title,
            kind=kind,
            step="",
            dated_on=petition.received_on,
            public=public,
            today=max(petition.received_on, date(2026, 3, 2)),
        )
        _index(session, store, document)


def _index(session: Session, store: attachments.Store, document: PetitionDocument) -> None:
    version = attachments.latest_version(session=session, document_id=document.id or 0)
    if version is not None and version.id is not None:
        file_search.index_version(
            session=session, folder=store.folder, version_id=version.id, limits=store.limits
        )
        file_search.draw_picture(folder=store.folder, version=version, limits=store.limits)


# --------------------------------------------------------------------------- bulk

_WORDS_ES = [
    "informe",
    "comisión",
    "distrito",
    "mejoras",
    "aceras",
    "alumbrado",
    "seguridad",
    "limpieza",
    "playa",
    "turismo",
    "hospedería",
    "comercio",
    "propiedad",
    "dueño",
    "impuesto",
    "fórmula",
    "tasación",
    "municipio",
    "legislatura",
    "ordenanza",
    "alcalde",
    "presupuesto",
    "recaudación",
    "asociación",
    "avenida",
    "calle",
    "parque",
    "estacionamiento",
    "señalización",
    "paisajismo",
    "vigilancia",
    "mantenimiento",
    "transporte",
    "peatones",
    "información",
    "participación",
    "vista",
    "pública",
    "desarrollo",
    "económico",
    "alcantarillado",
    "acueducto",
    "energía",
]
_WORDS_EN = [
    "report",
    "committee",
    "district",
    "improvements",
    "sidewalks",
    "lighting",
    "safety",
    "cleaning",
    "beach",
    "tourism",
    "lodging",
    "business",
    "property",
    "owner",
    "assessment",
    "formula",
    "municipality",
    "budget",
    "collection",
    "association",
    "avenue",
    "street",
    "park",
    "parking",
    "signage",
    "landscaping",
    "maintenance",
]


@dataclass(frozen=True)
class Bulk:
    documents: int
    seconds: float


def add_documents(session: Session, config: Mapping[str, Any], count: int) -> Bulk:
    """``count`` generated documents (a page of text each, Spanish and English words with
    a Zipf-like spread) on the demo's petitions, filed and indexed; idempotent: a second
    run adds only what is missing."""
    started = time.monotonic()
    petitions = [p for p in (_petition(session, CONDADO), _petition(session, ISLA_VERDE)) if p]
    if not petitions:
        return Bulk(0, 0.0)
    have = session.exec(
        select(func.count()).where(col(PetitionDocument.title).startswith(GENERATED_TITLE))
    ).one()
    store = attachments.Store(archive_dir(config), document_max_bytes(config), durable=False)
    words = _WORDS_ES + _WORDS_EN
    weights = [1.0 / (rank + 1) for rank in range(len(words))]
    made = 0
    for number in range(have + 1, count + 1):
        rng = random.Random(number)
        petition = petitions[number % len(petitions)]
        lines = [" ".join(rng.choices(words, weights, k=12)) for _ in range(14)]
        lines.append(f"expediente {number:05d}")
        document = attachments.attach_generated(
            session=session,
            actor=DEMO_ACTOR,
            petition_id=petition.id or 0,
            store=store,
            pdf=text_pdf(lines),
            title=f"{GENERATED_TITLE} {number:05d}",
            kind=rng.choice(("report", "correspondence", "study", "other")),
            dated_on=petition.received_on,
            filename=f"documento-{number:05d}.pdf",
            index=False,
        )
        version = session.exec(
            select(DocumentVersion).where(DocumentVersion.document_id == document.id)
        ).one()
        version.text_state = "indexed"
        version.pages = 1
        session.add(version)
        file_search.put_entry(
            session=session,
            kind="document",
            ref_id=document.id or 0,
            petition=petition,
            title=document.title,
            body="\n".join(lines),
        )
        made += 1
        if made % 500 == 0:
            session.commit()
    session.commit()
    return Bulk(made, time.monotonic() - started)
