"""What an uploaded file is, read from its bytes: never from its name or from what the
browser says. The legislature's file takes PDF, PNG/JPEG/TIFF scans, DOCX/ODT,
XLSX/ODS and CSV; anything else is refused with a sentence that names the field.

- A ZIP is a DOCX/XLSX only with their part list (``[Content_Types].xml``) and main part,
  an ODT/ODS only with its ``mimetype`` entry; its entries are inflated with a bound on the
  total (a small file that unpacks to gigabytes is refused, whatever its headers claim).
- A PDF must open without a password and parse; one with JavaScript, embedded files or
  launch actions is refused, naming which (the clerk can print it to a new PDF).
- A CSV is text (UTF-8 or Windows-1252) with no NUL or other control bytes, and not a web
  page.
- A file name keeps no folder and no control character, and ends with the extension of
  the type read from its content (:func:`named_for`: ``falso.pdf`` holding text is kept as
  ``falso.csv``), so that no one opens it as what it is not.
"""

from __future__ import annotations

import io
import unicodedata
import zipfile
from dataclasses import dataclass

from tid.rules.errors import InputError
from tid.rules.messages import N_, Message

MAX_UNPACKED = 200 * 2**20  # bytes a DOCX/ODT/XLSX/ODS may inflate to, all entries together
MAX_ZIP_ENTRIES = 5_000
MAX_PDF_OBJECTS = 500_000
MAX_NAME = 200


@dataclass(frozen=True)
class FileType:
    code: str
    media_type: str
    extension: str
    label: str


TYPES: dict[str, FileType] = {
    t.code: t
    for t in (
        FileType("pdf", "application/pdf", "pdf", "PDF"),
        FileType("png", "image/png", "png", "PNG"),
        FileType("jpeg", "image/jpeg", "jpg", "JPEG"),
        FileType("tiff", "image/tiff", "tif", "TIFF"),
        FileType(
            "docx",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "docx",
            "DOCX",
        ),
        FileType("odt", "application/vnd.oasis.opendocument.text", "odt", "ODT"),
        FileType(
            "xlsx",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "xlsx",
            "XLSX",
        ),
        FileType("ods", "application/vnd.oasis.opendocument.spreadsheet", "ods", "ODS"),
        FileType("csv", "text/csv", "csv", "CSV"),
    )
}
MEDIA_TYPES = {t.media_type: t for t in TYPES.values()}
_ODF = {
    b"application/vnd.oasis.opendocument.text": "odt",
    b"application/vnd.oasis.opendocument.spreadsheet": "ods",
}
NOT_ACCEPTED = N_(
    "This kind of file is not accepted: send a PDF, a PNG, JPEG or TIFF scan, a DOCX or ODT "
    "document, or an XLSX, ODS or CSV spreadsheet."
)


def refuse(field: str, msgid: str, **params: object) -> InputError:
    return InputError(field, Message(msgid, **params))


def file_type(data: bytes, *, field: str = "file") -> FileType:
    """The type of ``data`` read from its content, checked whole (see the module); an
    ``InputError`` on ``field`` says why a file is refused."""
    if not data:
        raise refuse(field, N_("The file is empty (0 bytes): it may not have finished uploading."))
    if data.startswith(b"%PDF-"):
        check_pdf(data, field=field)
        return TYPES["pdf"]
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return TYPES["png"]
    if data.startswith(b"\xff\xd8\xff"):
        return TYPES["jpeg"]
    if data.startswith((b"II*\x00", b"MM\x00*")):
        return TYPES["tiff"]
    if data.startswith(b"PK\x03\x04"):
        return TYPES[_zip_type(data, field)]
    if _is_csv(data):
        return TYPES["csv"]
    raise refuse(field, NOT_ACCEPTED)


# --------------------------------------------------------------------------- zip packages


def open_zip(data: bytes, field: str) -> zipfile.ZipFile:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        raise refuse(
            field, N_("The file is a damaged ZIP package; save it again and send it.")
        ) from None
    if len(names) > MAX_ZIP_ENTRIES:
        raise refuse(field, N_("The package holds too many parts (%(count)s)."), count=len(names))
    return archive


def read_entry(
    archive: zipfile.ZipFile, name: str, budget: list[int], field: str, *, keep: bool = True
) -> bytes:
    """One entry inflated, counting against ``budget`` (bytes left); a package that would
    inflate past it is refused, whatever its headers declare. Without ``keep`` it is only
    counted (a megabyte at a time held, never the whole)."""
    chunks: list[bytes] = []
    try:
        with archive.open(name) as fh:
            while chunk := fh.read(1 << 20):
                budget[0] -= len(chunk)
                if budget[0] < 0:
                    raise refuse(
                        field,
                        N_(
                            "The package unpacks to more than %(limit)s MB (a compressed "
                            "bomb, or a document far larger than a file of record): refused."
                        ),
                        limit=MAX_UNPACKED // 2**20,
                    )
                if keep:
                    chunks.append(chunk)
    except InputError:
        raise
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError):
        raise refuse(
            field, N_("The file is a damaged or encrypted ZIP package; save it again.")
        ) from None
    return b"".join(chunks)


def _zip_type(data: bytes, field: str) -> str:
    archive = open_zip(data, field)
    names = set(archive.namelist())
    budget = [MAX_UNPACKED]
    for name in archive.namelist():  # every entry inflates within the bound
        read_entry(archive, name, budget, field, keep=False)
    if "mimetype" in names:
        kind = _ODF.get(read_entry(archive, "mimetype", [MAX_UNPACKED], field).strip())
        if kind and "content.xml" in names:
            return kind
    if "[Content_Types].xml" in names:
        if "word/document.xml" in names:
            return "docx"
        if "xl/workbook.xml" in names:
            return "xlsx"
    raise refuse(field, NOT_ACCEPTED)


# --------------------------------------------------------------------------- CSV


def decode_text(data: bytes) -> str | None:
    """The text of a CSV (UTF-8 with or without BOM, else Windows-1252); None if binary."""
    if b"\x00" in data:
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:
            return None
    if any(ord(c) < 32 and c not in "\t\r\n\f" for c in text[:65536]):
        return None
    return text


def _is_csv(data: bytes) -> bool:
    text = decode_text(data)
    if text is None:
        return False
    head = text.lstrip()[:200].lower()
    return not head.startswith(("<", "{\\rtf"))


# --------------------------------------------------------------------------- PDF


def check_pdf(data: bytes, *, field: str = "file") -> int:
    """A PDF that opens without a password, parses, and carries no JavaScript, embedded
    file or launch action; returns its number of pages."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            raise refuse(
                field,
                N_(
                    "The PDF is encrypted (it has a password or restrictions): a file of "
                    "record must open for anyone. Print it to a new PDF without protection."
                ),
            )
        pages = len(reader.pages)
        found = _active_content(reader)
    except InputError:
        raise
    except (PyPdfError, ValueError, TypeError, KeyError, AttributeError, OSError, RecursionError):
        raise refuse(
            field, N_("The PDF is damaged and cannot be read; save or scan it again.")
        ) from None
    except Exception:  # pypdf raises many kinds on hostile input
        raise refuse(
            field, N_("The PDF is damaged and cannot be read; save or scan it again.")
        ) from None
    if pages == 0:
        raise refuse(field, N_("The PDF has no pages."))
    if found:
        raise refuse(
            field,
            N_(
                "The PDF carries %(what)s, which could run on the reader's computer: refused. "
                "Print it to a new PDF (which leaves them out) and send that."
            ),
            what=Message(_ACTIVE[sorted(found)[0]]),
        )
    return pages


_ACTIVE = {
    "javascript": N_("JavaScript"),
    "embedded": N_("embedded files"),
    "launch": N_("a launch action"),
}


def _active_content(reader: object) -> set[str]:
    """The kinds of active content anywhere in the PDF's objects (compressed object
    streams included)."""
    from pypdf.generic import IndirectObject

    found: set[str] = set()
    refs: list[tuple[int, int]] = []
    xref = getattr(reader, "xref", {})
    for generation, numbers in xref.items():
        refs += [(number, generation) for number in numbers]
    refs += [(number, 0) for number in getattr(reader, "xref_objStm", {})]
    if len(refs) > MAX_PDF_OBJECTS:
        raise ValueError("too many objects")
    for number, generation in refs:
        try:
            obj = IndirectObject(number, generation, reader).get_object()
        except Exception:
            continue
        _scan(obj, found, 0)
    return found


def _scan(obj: object, found: set[str], depth: int) -> None:
    from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject, StreamObject

    if depth > 50 or isinstance(obj, IndirectObject):
        return
    if isinstance(obj, DictionaryObject | StreamObject):
        keys = set(obj.keys())
        if keys & {"/JS", "/JavaScript"} or obj.get("/S") == "/JavaScript":
            found.add("javascript")
        if obj.get("/S") == "/Launch":
            found.add("launch")
        if keys & {"/EmbeddedFiles", "/EF"} or obj.get("/Type") == "/EmbeddedFile":
            found.add("embedded")
        if obj.get("/Subtype") == "/FileAttachment":
            found.add("embedded")
        for value in obj.values():
            _scan(value, found, depth + 1)
    elif isinstance(obj, ArrayObject):
        for value in obj:
            _scan(value, found, depth + 1)


# --------------------------------------------------------------------------- names


def clean_name(name: str, *, field: str = "file") -> str:
    """The file's name as the clerk's computer gave it, or a refusal: no folder part (``/``
    or ``\\``), no control or invisible formatting character, at most 200 characters."""
    text = unicodedata.normalize("NFC", name or "").strip()
    if not text:
        raise refuse(field, N_("Choose a file to upload."))
    if "/" in text or "\\" in text or text in (".", ".."):
        raise refuse(
            field,
            N_("The file's name has folder parts (%(name)s): rename the file and send it again."),
            name=text[:80].encode("ascii", "backslashreplace").decode(),
        )
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in text):
        raise refuse(
            field,
            N_(
                "The file's name has control or invisible characters: rename the file with "
                "letters, digits and spaces and send it again."
            ),
        )
    if len(text) > MAX_NAME:
        raise refuse(
            field, N_("The file's name is longer than %(limit)s characters."), limit=MAX_NAME
        )
    return text


# The extensions a name may already end with for each type (the first is the one given).
_EXTENSIONS = {
    "pdf": ("pdf",),
    "png": ("png",),
    "jpeg": ("jpg", "jpeg", "jpe"),
    "tiff": ("tif", "tiff"),
    "docx": ("docx",),
    "odt": ("odt",),
    "xlsx": ("xlsx",),
    "ods": ("ods",),
    "csv": ("csv",),
}
_KNOWN = {extension for extensions in _EXTENSIONS.values() for extension in extensions}
_KNOWN |= {"txt", "doc", "xls", "htm", "html", "exe", "zip", "gif", "bmp", "rtf"}


def named_for(name: str, kind: FileType) -> str:
    """``name`` ending with the extension of ``kind`` (the type its content has): kept as it
    is when it already does; a wrong type's extension replaced (``falso.pdf`` of text:
    ``falso.csv``); added after any other ending (``acta`` → ``acta.pdf``). At most
    :data:`MAX_NAME` characters, the stem shortened."""
    stem, dot, ending = name.rpartition(".")
    if dot and ending.lower() in _EXTENSIONS[kind.code]:
        return name
    if not (dot and stem and ending.lower() in _KNOWN):
        stem = name
    suffix = "." + kind.extension
    return stem[: MAX_NAME - len(suffix)] + suffix
