"""PDF documents: a Jinja template of ``templates/pdf/`` rendered by WeasyPrint.

``render_pdf(render, "pdf/calc_report.html", result=…)`` → the PDF's bytes. ``render`` is
the caller's: it renders a template with its values in the reader's language (inside the app,
Flask's templates, with the filters ``|money`` and ``|day``, ``_()`` and ``url_for``;
:class:`tid.documents.base.Reader` carries it). This module knows no web framework.

Resources (stylesheets, images) are read from the app's ``static`` folder only: relative
URLs resolve against it (``base_url``), and the fetcher refuses anything that is not a file
inside it, so a document can never make the server fetch a URL.

Every document is a document of record that must last and that everyone can read: it is
written as PDF/A-2a (ISO 19005-2, WeasyPrint's ``pdf/a-2a`` variant: fonts embedded and
subset, sRGB output intent, XMP metadata) and tagged for screen readers (PDF/UA-1, declared
in the XMP metadata next to the PDF/A identification), with the document's language from
``<html lang>``, its title from ``<title>`` and its author from ``<meta name="author">`` (the
association or the municipality; :data:`DEFAULT_AUTHOR` when a template names none).

Laying out a long document costs about a second (a yearly statement of a hundred rows, on an
idle machine; several on a busy one) while its HTML takes a tenth of that: a document whose
HTML is one already laid out is given the same bytes again. The HTML is the whole of what the
PDF shows — its figures, its language, its day — so a changed journal or another day is
another HTML and a new PDF; the static files it reads change only with a new release. The
bytes are kept in the process (:class:`_Kept`, bounded by :data:`KEPT_BYTES`) and, when the
caller gives a folder (the installation's ``instance/prepared``), on a :class:`Shelf` that
every worker of the installation reads (and that outlives a release: :func:`_release` is part
of the key): a document laid out in the background before anyone asks
(:mod:`tid.web.account.prepared`) is then ready for whichever worker serves the reader, and a
document being laid out by one worker is waited for by the others, not laid out again.
A document prepared that way is kept by its name instead (:func:`shelved_pdf`: what its
figures depend on, read without rendering it — the yearly statement's district version, year,
day and language), so a reader who finds it renders no HTML at all.
"""

from __future__ import annotations

import fcntl
import gc
import hashlib
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

# The app's static folder: Flask's default for the ``tid`` package.
STATIC_FOLDER = Path(__file__).resolve().parent.parent / "static"


def static_base_url() -> str:
    """The ``file://`` URL of the app's static folder (ending in ``/``)."""
    return STATIC_FOLDER.resolve().as_uri() + "/"


def _fetcher_for(root: Path) -> Any:
    import weasyprint

    class StaticOnlyFetcher(weasyprint.URLFetcher):  # type: ignore[misc]
        """Fetch ``file:`` URLs inside ``root`` and ``data:`` URLs; refuse the rest."""

        def fetch(self, url: str, headers: Any = None) -> Any:
            parsed = urlparse(url)
            if parsed.scheme == "data":
                return super().fetch(url, headers)
            if parsed.scheme == "file":
                path = Path(unquote(parsed.path)).resolve()
                if path.is_relative_to(root):
                    return super().fetch(url, headers)
            raise ValueError(f"resource not allowed in a PDF: {url}")

    return StaticOnlyFetcher(allowed_protocols={"file", "data"})


PDF_VARIANT = "pdf/a-2a"  # PDF/A-2, level A: tagged, every glyph mapped to Unicode
DEFAULT_LANG = "es"
DEFAULT_AUTHOR = "Distritos de Mejoramiento Turístico de Puerto Rico (tid)"
_PDFUA_XMP = (
    b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
    b'<rdf:Description rdf:about="" xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/" '
    b'pdfuaid:part="1"/></rdf:RDF>'
)


KEPT_BYTES = 32 * 1024 * 1024  # the PDFs kept in a process, at most


class _Kept:
    """The latest PDFs made in this process, by the SHA-256 of their HTML and base URL; the
    least recently used go first once they hold more than ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self.pdfs: OrderedDict[str, bytes] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        with self.lock:
            pdf = self.pdfs.get(key)
            if pdf is not None:
                self.pdfs.move_to_end(key)
            return pdf

    def put(self, key: str, pdf: bytes) -> None:
        if len(pdf) > self.limit // 4:  # a very large one would push out all the others
            return
        with self.lock:
            if key in self.pdfs:
                return
            self.pdfs[key] = pdf
            self.size += len(pdf)
            while self.size > self.limit:
                _old, dropped = self.pdfs.popitem(last=False)
                self.size -= len(dropped)

    def clear(self) -> None:
        with self.lock:
            self.pdfs.clear()
            self.size = 0


_kept = _Kept(KEPT_BYTES)


SHELF_BYTES = 256 * 1024 * 1024  # the PDFs kept on a shelf, at most


class Shelf:
    """PDFs kept in a folder by the SHA-256 of their HTML (``<key>.pdf``, readable by the
    app's user alone), shared by the processes of an installation. :meth:`making` is held
    while a document is laid out: another process or thread asking for the same one waits
    for it, then finds it. Once the folder holds more than ``limit`` bytes, the documents
    read least recently go first."""

    def __init__(self, folder: Path, limit: int = SHELF_BYTES) -> None:
        self.folder = folder
        self.limit = limit

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.pdf"

    def has(self, key: str) -> bool:
        return self._path(key).exists()

    def get(self, key: str) -> bytes | None:
        path = self._path(key)
        try:
            data = path.read_bytes()
            os.utime(path)  # read lately: pruned last
        except FileNotFoundError:
            return None
        return data

    @contextmanager
    def making(self, key: str) -> Iterator[None]:
        """Held while the document of ``key`` is laid out (a lock on its own file)."""
        from tid.files import open_private, private_folder

        private_folder(self.folder / "locks")
        handle = open_private(self.folder / "locks" / f"{key}.lock", os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield
        finally:
            os.close(handle)  # closing releases the lock; the file goes when pruned

    def put(self, key: str, pdf: bytes, *, only_here: bool = False) -> None:
        """Keep ``pdf`` (written whole, then named: a reader never sees half a file); not one
        so large it would push out most of the others (a large district's statement, made by
        a job that keeps it with its result) — unless the shelf is ``only_here`` it is kept
        (a document kept by its name, such as a run's draft manifest: not kept, its job would
        be started again at every click), up to half the shelf."""
        from tid.files import private_folder, write_private

        if len(pdf) > self.limit // (2 if only_here else 8):
            return
        private_folder(self.folder)
        partial = self.folder / f"{key}.{os.getpid()}.{threading.get_ident()}.part"
        write_private(partial, pdf)
        os.replace(partial, self._path(key))
        self._prune()

    def _prune(self) -> None:
        # A lock an hour old guards nothing any more (at worst a document is made twice).
        hour_ago = time.time() - 3600
        for lock in (self.folder / "locks").glob("*.lock"):
            with suppress(FileNotFoundError):
                if lock.stat().st_mtime < hour_ago:
                    lock.unlink()
        kept = []
        for path in self.folder.glob("*.pdf"):
            with suppress(FileNotFoundError):
                stat = path.stat()
                kept.append((stat.st_mtime, stat.st_size, path))
        total = sum(size for _, size, _ in kept)
        for _, size, path in sorted(kept):
            if total <= self.limit:
                break
            with suppress(FileNotFoundError):
                path.unlink()
            total -= size


# A page laid out once when a web worker starts (:func:`warm`), in the documents' fonts and
# shapes: WeasyPrint, Pango and the fonts are loaded then, not by the first reader of a PDF.
_WARM_HTML = (
    '<!doctype html><html lang="es"><head><meta charset="utf-8"><title>tid</title><style>'
    '@page { size: letter; @bottom-right { content: counter(page) " / " counter(pages); } }'
    'html { font-family: "DejaVu Sans", sans-serif; font-size: 9.5pt; }'
    "table { border-collapse: collapse; width: 100%; } td, th { padding: 1mm; }"
    'code { font-family: "DejaVu Sans Mono", monospace; }'
    "</style></head><body><h1>Estado de cuenta · Statement</h1>"
    "<table><thead><tr><th>Asiento</th><th>Débito</th></tr></thead><tbody>"
    "<tr><td>1 · 15 jul 2025 · <em>Imposición</em></td><td><strong>$1,234.50</strong></td></tr>"
    "</tbody></table><p><code>9400 1118 9922 3855 2170 67</code> ñáéíóú ÑÁÉÍÓÚ ¿¡ § — “”</p>"
    "</body></html>"
)
_warming = threading.Lock()


def warm() -> None:
    """Load WeasyPrint and the documents' fonts by laying out a small page (a web worker
    does it in the background when it starts; a PDF asked for meanwhile waits for it)."""
    with _warming:
        _made(_WARM_HTML, static_base_url())
        _release()  # the static files read once, for the documents' keys
        _sources()  # and the code and templates, for the keys of the prepared ones


def html_to_pdf(html: str, *, base_url: str | None = None, shelf: Path | None = None) -> bytes:
    """PDF/A-2a bytes of an HTML document (tagged, PDF/UA-1 declared); relative URLs
    resolve against ``base_url``. The language (``<html lang>``), title and author default
    to :data:`DEFAULT_LANG`, "tid" and :data:`DEFAULT_AUTHOR`. The same HTML made again in
    this process, or kept on the :class:`Shelf` in the folder ``shelf``, is given the bytes
    made before."""
    base = base_url or static_base_url()
    key = hashlib.sha256(f"{_release()}\x00{base}\x00{html}".encode()).hexdigest()
    kept = _kept.get(key)
    if kept is not None:
        if shelf is not None and not (on_shelf := Shelf(shelf)).has(key):  # pruned, say
            on_shelf.put(key, kept)
        return kept
    if shelf is None:
        pdf = _made_after_warm_up(html, base)
    else:
        on_shelf = Shelf(shelf)
        pdf = on_shelf.get(key) or b""
        if not pdf:
            with on_shelf.making(key):
                pdf = on_shelf.get(key) or b""  # made meanwhile by another worker
                if not pdf:
                    pdf = _made_after_warm_up(html, base)
                    on_shelf.put(key, pdf)
    _kept.put(key, pdf)
    return pdf


def shelved_pdf(
    name: Callable[[], str],
    html: Callable[[], str],
    *,
    shelf: Path | None = None,
    base_url: str | None = None,
) -> bytes:
    """The PDF of a document kept by its name rather than by its HTML: ``name()`` says all
    the document shows depends on (its district's version, its year, its day, its language …)
    in one string, read without rendering anything, and ``html()`` renders it only when no
    document of that name was made before (in this process, or kept on the :class:`Shelf` in
    the folder ``shelf``, whose lock makes a reader wait for one being laid out). The name is
    read again once the HTML is rendered: a document whose name moved meanwhile (a booking
    committed during it) goes to its reader but is not kept, so a document kept under a name
    shows what that name stood for. The code and templates that render it are part of the
    key (:func:`_sources`): a new release makes every document anew."""
    base = base_url or static_base_url()

    def key_of(named: str) -> str:
        return named_key(named, base_url=base)

    key = key_of(name())
    kept = _kept.get(key)
    if kept is not None:
        if shelf is not None and not (on_shelf := Shelf(shelf)).has(key):  # pruned, say
            on_shelf.put(key, kept)
        return kept
    if shelf is None:
        pdf = _made_after_warm_up(html(), base)
        if key_of(name()) == key:
            _kept.put(key, pdf)
        return pdf
    on_shelf = Shelf(shelf)
    pdf = on_shelf.get(key) or b""
    if not pdf:
        with on_shelf.making(key):
            pdf = on_shelf.get(key) or b""  # made meanwhile by another worker or thread
            if not pdf:
                pdf = _made_after_warm_up(html(), base)
                if key_of(name()) != key:  # its figures moved while it was made
                    return pdf
                on_shelf.put(key, pdf)
    _kept.put(key, pdf)
    return pdf


def named_key(named: str, *, base_url: str | None = None) -> str:
    """The key of a document kept by its name (:func:`shelved_pdf`): the name, with the
    release, the code and templates that render it and the static files' address."""
    base = base_url or static_base_url()
    made_of = f"named\x00{_release()}\x00{_sources()}\x00{base}\x00{named}"
    return hashlib.sha256(made_of.encode()).hexdigest()


def found_named(named: str, *, shelf: Path) -> bytes | None:
    """The document kept by its name ``named``, in this process or on the :class:`Shelf`
    in the folder ``shelf``; None when none was made (nothing is laid out here: a document
    too long for a request is made by a job, :func:`keep_named`)."""
    key = named_key(named)
    kept = _kept.get(key)
    if kept is not None:
        return kept
    pdf = Shelf(shelf).get(key)
    if pdf is not None:
        _kept.put(key, pdf)
    return pdf


def keep_named(named: str, pdf: bytes, *, shelf: Path) -> None:
    """Keep ``pdf`` by its name ``named`` on the :class:`Shelf` in the folder ``shelf`` (a
    job made it: every worker's request then finds it with :func:`found_named`)."""
    key = named_key(named)
    Shelf(shelf).put(key, pdf, only_here=True)
    _kept.put(key, pdf)


@cache
def _sources() -> str:
    """What renders a document kept by its name: the package's code and messages and the
    templates (read once per process)."""
    package = Path(__file__).resolve().parent.parent
    templates = package.parent / "templates"
    files = [p for p in package.rglob("*") if p.suffix in (".py", ".mo")]
    files += [p for p in templates.rglob("*") if p.is_file()]
    made_of = []
    for path in sorted(files):
        made_of += [str(path.relative_to(package.parent)).encode(), path.read_bytes()]
    return hashlib.sha256(b"\x00".join(made_of)).hexdigest()


@cache
def _release() -> str:
    """What besides its HTML makes a PDF: this module, the static files and the versions of
    WeasyPrint and its PDF writer. A shelf outlives a release; its PDFs do not."""
    from importlib.metadata import version

    made_of = [Path(__file__).read_bytes()]
    for path in sorted(STATIC_FOLDER.rglob("*")):
        if path.is_file():
            made_of += [str(path.relative_to(STATIC_FOLDER)).encode(), path.read_bytes()]
    made_of += [version("weasyprint").encode(), version("pydyf").encode()]
    return hashlib.sha256(b"\x00".join(made_of)).hexdigest()


def _made_after_warm_up(html: str, base: str) -> bytes:
    with _warming:  # a warm-up under way finishes first (WeasyPrint lays out one at a time)
        pass
    return _made(html, base)


def _documents_ua_css(weasyprint_ua: str) -> str:
    """WeasyPrint's user-agent stylesheet for HTML with its pseudo-elements scoped to where
    they occur in documents: ``::marker`` to list items and summaries, and none of the
    footnote and note pseudo-elements (no document floats a footnote). The rest is WeasyPrint's.

    A universal pseudo-element rule gives every element of the page a pseudo-element style
    to compute — five per table cell — which was a fifth of a long statement's layout."""
    lines = []
    for line in weasyprint_ua.splitlines():
        if line.startswith("::marker"):
            line = "li::marker, summary::marker" + line.removeprefix("::marker")
        elif re.match(r"::(footnote|note)-", line):
            continue
        lines.append(line)
    return "\n".join(lines)


@cache
def _html() -> Any:
    """WeasyPrint's ``HTML`` reading the documents' user-agent stylesheet
    (:func:`_documents_ua_css`), made once."""
    import weasyprint  # imported on use: loading pango is slow and the web rarely needs it

    ua_file = Path(weasyprint.__file__).parent / "css" / "html5_ua.css"
    ua = weasyprint.CSS(string=_documents_ua_css(ua_file.read_text(encoding="utf-8")))

    class DocumentHTML(weasyprint.HTML):  # type: ignore[misc]
        def _ua_stylesheets(self, forms: bool = False) -> list[Any]:
            return [ua, *super()._ua_stylesheets(forms)[1:]]

    return DocumentHTML


_laying_out = 0
_laying_out_lock = threading.Lock()


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector waits while a document is laid out: WeasyPrint makes
    hundreds of thousands of small objects, and the collections they set off scan the whole
    process again and again (a tenth to a fifth of a long document's time). It runs again
    when the last layout under way ends; the layout's garbage goes at its next pass."""
    global _laying_out
    with _laying_out_lock:
        if _laying_out == 0 and not gc.isenabled():
            paused = False  # someone else turned it off: leave it as found
        else:
            paused = True
            _laying_out += 1
            gc.disable()
    try:
        yield
    finally:
        if paused:
            with _laying_out_lock:
                _laying_out -= 1
                if _laying_out == 0:
                    gc.enable()


def _made(html: str, base: str) -> bytes:
    """The PDF of ``html`` laid out by WeasyPrint."""
    with _collector_paused():
        return _laid_out(html, base)


def _laid_out(html: str, base: str) -> bytes:
    root = Path(unquote(urlparse(base).path)).resolve()
    document = _html()(string=html, base_url=base, url_fetcher=_fetcher_for(root)).render(
        pdf_tags=True
    )
    metadata = document.metadata
    # Every template says its language and title; a bare fragment gets the defaults.
    metadata.lang = metadata.lang or DEFAULT_LANG
    metadata.title = metadata.title or "tid"
    if not metadata.authors:
        metadata.authors = [DEFAULT_AUTHOR]
    metadata.xmp_metadata.append(_PDFUA_XMP)
    pdf: bytes = document.write_pdf(pdf_variant=PDF_VARIANT, pdf_tags=True)
    return pdf


def render_pdf(
    render: Callable[..., str],
    template_name: str,
    /,
    *,
    base_url: str | None = None,
    shelf: Path | None = None,
    **context: Any,
) -> bytes:
    """Render ``template_name`` with ``context`` by ``render`` and return the PDF's bytes
    (kept on the :class:`Shelf` in the folder ``shelf`` when one is given).

    ``base_url`` defaults to the static folder, so ``<link href="tid.css">`` or
    ``<img src="logo.png">`` in a PDF template read ``tid/static/``.
    """
    html = render(template_name, **context)
    return html_to_pdf(html, base_url=base_url, shelf=shelf)
