"""The documents of record (``tid document NAME``): a PDF or a CSV, as the web gives it."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
from flask import current_app
from flask.cli import with_appcontext

from tid.cli.calc import read_json
from tid.rules.errors import InputError

_DOCUMENT_OPTIONS = (
    "district",
    "year",
    "booked_by",
    "property",
    "municipality",
    "state",
    "batch",
    "notice",
    "calculator",
    "input",
    "study",
    "through",
    "issued_by",
    "reform",
)


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


class _DocumentError(Exception):
    """A bad parameter of ``tid document``: the option and the message (a msgid)."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option, self.message = option, message


def _language(lang: str | None) -> str:
    """--lang, else the language of the environment (LC_ALL, LC_MESSAGES, LANG) when the app
    speaks it, else the app's own (Spanish)."""
    from tid.cli.environment import environment_language

    languages: list[str] = current_app.config["LANGUAGES"]
    if lang:
        return lang
    chosen = environment_language()
    return chosen if chosen in languages else str(current_app.config["BABEL_DEFAULT_LOCALE"])


def _document_parameter(name: str, text: str) -> Any:
    """The value of one option of ``tid document`` (a problem: a :class:`_DocumentError`)."""
    import os
    from datetime import date

    from tid.ids import parse_id
    from tid.rules.errors import N_
    from tid.rules.periods import parse_fiscal_year

    text = text.strip()
    if name == "year":
        try:
            return parse_fiscal_year(text, "year")
        except InputError:
            raise _DocumentError(name, N_("Write a fiscal year like 2024-25.")) from None
    if name in ("booked_by", "through"):
        try:
            return date.fromisoformat(text)
        except ValueError:
            raise _DocumentError(name, N_("Write a date like 2026-03-02.")) from None
    if name in ("district", "municipality", "property", "batch", "study"):
        number = parse_id(text)
        if number is None and name in ("district", "municipality"):
            number = _id_by_name(name, text)
        if number is None:
            raise _DocumentError(name, N_("Write a whole number, like 3."))
        return number
    if name == "input":
        if text != "-" and not os.path.isfile(text):
            raise _DocumentError(name, N_("There is no such file."))
        try:
            return read_json(text)
        except InputError as exc:
            raise _DocumentError(name, exc.message) from None
    return text


def _id_by_name(name: str, text: str) -> int | None:
    """A district or a municipality by its exact name."""
    from sqlmodel import select

    from tid.db import get_session
    from tid.documents.base import NO_DISTRICT
    from tid.documents.petitions import NO_MUNICIPALITY
    from tid.models import District, Municipality

    session = get_session()
    if name == "district":
        district = session.exec(select(District).where(District.name == text)).first()
        if district is None:
            raise _DocumentError(name, NO_DISTRICT)
        return district.id
    municipality = session.exec(select(Municipality).where(Municipality.name == text)).first()
    if municipality is None:
        raise _DocumentError(name, NO_MUNICIPALITY)
    return municipality.id


def _document_list(lang: str) -> None:
    from flask_babel import force_locale

    from tid import documents
    from tid.i18n import say

    with force_locale(lang):
        for kind in documents.KINDS.values():
            click.echo(f"{kind.name}  {say(kind.title)}")
            for name in kind.needs:
                click.echo(f"    {_option(name)}  {say(documents.PARAMETERS[name])}")
            for name in kind.optional:
                click.echo(f"    [{_option(name)}]  {say(documents.PARAMETERS[name])}")


def _document_fail(lang: str, option: str, message: str) -> Any:
    """Exit 2 with ``Error: --option: message`` (in the user's language) on standard error."""
    from flask_babel import force_locale

    from tid.i18n import say

    with force_locale(lang):
        click.echo(f"Error: {option}: {say(message)}", err=True)
    sys.exit(2)


def _write_document(data: bytes, out: str) -> None:
    """The bytes to ``out`` whole or not at all (a temporary file renamed), or to standard
    output for ``-``."""
    import os
    import tempfile

    if out == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    folder = os.path.dirname(os.path.abspath(out))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tid-document-")
    try:
        with os.fdopen(handle, "wb") as fh:
            fh.write(data)
        os.replace(temporary, out)
    except BaseException:
        os.unlink(temporary)
        raise


@click.command("document")
@click.argument("name")
@click.option("--district", help="District id or exact name.")
@click.option("--year", help='Fiscal year, like "2026-27".')
@click.option("--booked-by", "booked_by", help="The journal as it stood that day (YYYY-MM-DD).")
@click.option("--property", "property_", help="Property id.")
@click.option("--municipality", help="Municipality id or exact name.")
@click.option("--state", help="State of the petitions.")
@click.option("--batch", help="Notice run id.")
@click.option("--notice", help="Notice number.")
@click.option("--calculator", help="Calculator name (as tid calc names it).")
@click.option("--input", "input_", help="The calculator's JSON document (a file, - for stdin).")
@click.option("--study", help="A petition's formula study (its number).")
@click.option("--through", help="The day a payoff quote is good through (YYYY-MM-DD).")
@click.option("--issued-by", "issued_by", help="Who issues the document (a name).")
@click.option("--reform", help="A saved reform's id.")
@click.option("--lang", help="es or en (default: the environment's language, else es).")
@click.option("--out", help="The file to write (- for standard output; a CSV's default).")
@with_appcontext
def document_command(name: str, lang: str | None, out: str | None, **options: str | None) -> None:
    """Write the document of record NAME (a PDF or a CSV), as the web gives it; NAME "list":
    every document and what each needs."""
    from tid import documents
    from tid.app_reader import reader
    from tid.db import get_session
    from tid.rules.errors import N_

    if lang is not None and lang not in current_app.config["LANGUAGES"]:
        _document_fail(_language(None), "--lang", N_("Write es or en."))
    lang = _language(lang)
    if name == "list":
        _document_list(lang)
        return
    kind = documents.KINDS.get(name)
    if kind is None:
        _document_fail(lang, "NAME", N_("There is no such document: see tid document list."))
        return
    if kind.media_type == documents.PDF and not out:
        _document_fail(lang, "--out", N_("A PDF is written to a file: name it with --out."))
    given = {k.rstrip("_"): v for k, v in options.items() if v is not None}
    try:
        params = {k: _document_parameter(k, v) for k, v in given.items()}
        document = documents.make(get_session(), name, reader=reader(lang), **params)
        get_session().commit()  # a document issued (a payoff quote) is recorded
    except _DocumentError as exc:
        _document_fail(lang, _option(exc.option), exc.message)
        return
    except InputError as exc:
        if exc.field in _DOCUMENT_OPTIONS:
            where = _option(exc.field)
        else:
            where = "--input" if "input" in kind.needs else "NAME"
        _document_fail(lang, where, exc.message)
        return
    _write_document(document.data, out or "-")
    if out and out != "-":
        click.echo(
            json.dumps({"file": out, "bytes": len(document.data), "name": document.filename})
        )
