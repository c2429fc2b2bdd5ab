"""A district leaves with its whole record and comes back: ``tid export district`` writes the
Condado district of the demo as a ZIP (the same record, the same bytes), ``tid import
district`` reads it into a fresh installation on the OTHER backend, where the yearly
statements, the delinquency list, ``tid account verify``, ``tid archive verify`` and an issued
document's verification code give what they gave. A changed package, a file that is no ZIP,
too large, or with an entry named outside the package is refused with what failed, and
nothing is written."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func
from sqlmodel import Session, select

from tests.conftest import make_test_app
from tid.app_reader import reader
from tid.documents import account as account_documents
from tid.documents import closing
from tid.models import (
    AuthorizedPurpose,
    District,
    IssuedDocument,
    JournalEntry,
)
from tid.rules.periods import fiscal_year_of
from tid.services import issued, liens
from tid.services.district_record import tables

CONDADO = "Distrito de Mejoramiento Turístico de Condado"
TODAY = date(2026, 12, 1)


def test_every_table_of_the_models_is_exported_or_left_out_with_its_reason() -> None:
    exported = {spec.name for spec in tables.TABLES}
    left_out = set(tables.LEFT_OUT)
    assert not exported & left_out
    assert tables.model_tables() - exported - left_out == set()
    assert all(len(reason) > 20 for reason in tables.LEFT_OUT.values())
    assert (exported | left_out) - tables.model_tables() == set()


# --------------------------------------------------------------------------- helpers


def _fresh_database(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database with the schema on backend ``kind`` (dropped after the test)."""
    if kind == "sqlite":
        target = tmp_path / f"fresh-{len(list(tmp_path.glob('fresh-*')))}.sqlite"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), target)
        return f"sqlite:///{target}"
    spares = request.getfixturevalue("pg_spares")
    name = spares.take()
    request.addfinalizer(lambda: spares.drop(name))
    return str(spares.server.url(name))


@pytest.fixture
def source(demo_loaded: str, tmp_path: Path) -> Iterator[Flask]:
    app = make_test_app(demo_loaded, tmp_path, TODAY=TODAY.isoformat())
    yield app
    app.extensions["tid.engine"].dispose()


def _target(url: str, folder: Path) -> Flask:
    return make_test_app(url, folder, TODAY=TODAY.isoformat())


def _condado(session: Session) -> int:
    found = session.exec(select(District.id).where(District.name == CONDADO)).one()
    return int(found or 0)


def _issue_quote(app: Flask) -> str:
    """A payoff quote of a Condado property that owes, issued and archived: its code."""
    with app.app_context(), Session(app.extensions["tid.engine"]) as session:
        district_id = _condado(session)
        owed = liens.delinquency(session=session, district_id=district_id, today=TODAY)
        assert owed, "the demo's Condado district has bills past due"
        closing.payoff_pdf(
            session,
            district=district_id,
            property=owed[0].property.id,
            reader=reader("es"),
            through=TODAY + timedelta(days=20),
            issued_by="Tesorería de Condado",
        )
        session.commit()
        return session.exec(select(IssuedDocument.code)).one()


def _figures(app: Flask, district_id: int) -> dict[str, Any]:
    """What the installation says of the district's account: each year's statement, aging
    and journal (CSV), the delinquency list, and ``tid account verify``'s figures."""
    found: dict[str, Any] = {}
    with app.app_context(), Session(app.extensions["tid.engine"]) as session:
        days = session.exec(
            select(JournalEntry.entry_date).where(JournalEntry.district_id == district_id)
        ).all()
        years = sorted({fiscal_year_of(day) for day in days}, key=lambda fy: fy.start_year)
        assert years
        for fy in years:
            for part in ("statement", "aging", "journal"):
                made = account_documents.statement_part_csv(
                    session, district=district_id, part=part, reader=reader("es"), year=fy
                )
                found[f"{part} {fy.label}"] = made.data.decode("utf-8")
        found["delinquency"] = [
            (
                r.property.cadastral_number,
                r.owner_names,
                r.bill.fiscal_year,
                r.bill.due_date,
                r.outstanding,
                r.charges,
            )
            for r in liens.delinquency(session=session, district_id=district_id, today=TODAY)
        ]
        purposes = {
            f"expense:purpose:{p.id}": f"expense:purpose:{p.name}"
            for p in session.exec(
                select(AuthorizedPurpose).where(AuthorizedPurpose.district_id == district_id)
            )
        }
    verified = app.test_cli_runner().invoke(args=["account", "verify"])
    assert verified.exit_code == 0, verified.output
    report = json.loads(verified.output)
    assert report["agrees"] and report["differences"] == 0
    mine = report["districts"][str(district_id)]
    mine["balances"] = {purposes.get(k, k): v for k, v in mine["balances"].items()}
    found["verify"] = mine
    return found


def _export(app: Flask, district_id: int, out: Path) -> bytes:
    made = app.test_cli_runner().invoke(
        args=["export", "district", "--district", str(district_id), "--out", str(out)]
    )
    assert made.exit_code == 0, made.output
    return out.read_bytes()


def _rows(app: Flask) -> int:
    """Every row of every table of the record in an installation."""
    with app.extensions["tid.engine"].connect() as conn:
        return sum(
            int(conn.execute(select(func.count()).select_from(spec.table)).scalar_one())
            for spec in tables.TABLES
        )


# --------------------------------------------------------------------------- the round trip


def test_a_district_leaves_and_comes_back_on_the_other_backend(
    source: Flask, backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    code = _issue_quote(source)
    with source.app_context(), Session(source.extensions["tid.engine"]) as session:
        district_id = _condado(session)
    before = _figures(source, district_id)
    package = _export(source, district_id, tmp_path / "condado.zip")
    # The same record gives the same bytes.
    assert _export(source, district_id, tmp_path / "again.zip") == package

    other = "postgresql" if backend == "sqlite" else "sqlite"
    target = _target(_fresh_database(other, request, tmp_path), tmp_path / "target")
    try:
        done = target.test_cli_runner().invoke(
            args=["import", "district", str(tmp_path / "condado.zip")]
        )
        assert done.exit_code == 0, done.output
        with target.app_context(), Session(target.extensions["tid.engine"]) as session:
            new_id = _condado(session)
            quote = session.exec(select(IssuedDocument)).one()
            assert quote.district_id == new_id and quote.code == code
        assert _figures(target, new_id) == before
        archive = target.test_cli_runner().invoke(args=["archive", "verify"])
        assert archive.exit_code == 0 and "every one matches" in archive.output
        page = target.test_client().get(f"/verificar/{issued.shown_code(code)}")
        said = " ".join(page.get_data(as_text=True).split())
        assert page.status_code == 200 and "Documento auténtico" in said
        assert quote.reference in said
        # Exported again from the new installation: the same tables, row for row, but ids.
        again = _export(target, new_id, tmp_path / "back.zip")
        with (
            zipfile.ZipFile(io.BytesIO(again)) as back,
            zipfile.ZipFile(io.BytesIO(package)) as first,
        ):
            assert sorted(back.namelist()) == sorted(first.namelist())
            assert back.read("data/notice.csv").count(b"\n") == first.read("data/notice.csv").count(
                b"\n"
            )
        # A second import of the same district is refused: it is there now.
        twice = target.test_cli_runner().invoke(
            args=["import", "district", str(tmp_path / "condado.zip")]
        )
        assert twice.exit_code != 0 and "already has the district" in twice.output
    finally:
        target.extensions["tid.engine"].dispose()
