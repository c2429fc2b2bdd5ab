"""A district leaves with its whole record and comes back: ``tid export district`` writes the
Condado district of the demo as a ZIP (the same record, the same bytes), ``tid import
district`` reads it into a fresh installation on the OTHER backend, where the yearly
statements, the delinquency list, ``tid account verify``, ``tid archive verify`` and an issued
document's verification code give what they gave. A changed package, a file that is no ZIP,
too large, or with an entry named outside the package is refused with what failed, and
nothing is written."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import zipfile
from collections.abc import Iterator
from datetime import date, timedelta
from decimal import Decimal
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
    RollChange,
    RollCheckSetting,
    RollImport,
)
from tid.rules.periods import fiscal_year_of
from tid.services.audit_trail.audit import SYSTEM
from tid.services.closing import issued
from tid.services.district_record import tables
from tid.services.district_record.intake import import_district
from tid.services.district_record.reading import RecordError
from tid.services.liens import impost_lien as liens

CONDADO = "Distrito de Mejoramiento Turístico de Condado"
TODAY = date(2026, 12, 1)


def test_every_table_of_the_models_is_exported_or_left_out_with_its_reason() -> None:
    exported = {spec.name for spec in tables.TABLES}
    left_out = set(tables.LEFT_OUT)
    assert not exported & left_out
    assert tables.model_tables() - exported - left_out == set()
    assert all(len(reason) > 20 for reason in tables.LEFT_OUT.values())
    assert (exported | left_out) - tables.model_tables() == set()


def test_the_page_on_leaving_names_every_table_exported_or_left_out() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "leaving.md").read_text("utf-8")
    named = {spec.name for spec in tables.TABLES} | set(tables.LEFT_OUT)
    assert sorted(name for name in named if f"`{name}`" not in page) == []


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
        archive = target.test_cli_runner().invoke(args=["archive", "verify", "--lang", "en"])
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


# --------------------------------------------------------------------------- refusals


def _rewritten(package: bytes, changes: dict[str, bytes], *, fix_hashes: bool = False) -> bytes:
    """The package with some entries' bytes changed (and, if asked, the descriptor's hashes
    made to agree with them, as a careful forger would)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(package)) as first, zipfile.ZipFile(out, "w") as second:
        descriptor = json.loads(first.read("datapackage.json"))
        for resource in descriptor["resources"]:
            if fix_hashes and resource["path"] in changes:
                data = changes[resource["path"]]
                resource["hash"] = f"sha256:{hashlib.sha256(data).hexdigest()}"
                resource["bytes"] = len(data)
        for info in first.infolist():
            data = changes.get(info.filename, first.read(info.filename))
            if info.filename == "datapackage.json":
                data = json.dumps(descriptor).encode("utf-8")
            second.writestr(info, data)
    return out.getvalue()


def _refused(app: Flask, path: Path, max_bytes: int = 1 << 30) -> str:
    """Import ``path`` into ``app``'s installation: refused, and nothing written."""
    rows = _rows(app)
    archive = Path(app.config["ARCHIVE_DIR"])
    files = sorted(p for p in archive.rglob("*") if p.is_file())
    with app.app_context(), Session(app.extensions["tid.engine"]) as session:
        with pytest.raises(RecordError) as refused:
            import_district(
                session=session, path=path, folder=archive, max_bytes=max_bytes, actor=SYSTEM
            )
        session.rollback()
    assert _rows(app) == rows
    assert sorted(p for p in archive.rglob("*") if p.is_file()) == files  # no file kept
    return str(refused.value)


@pytest.fixture
def exported(source: Flask, tmp_path: Path) -> bytes:
    with source.app_context(), Session(source.extensions["tid.engine"]) as session:
        district_id = _condado(session)
    return _export(source, district_id, tmp_path / "condado.zip")


@pytest.fixture
def fresh(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Flask]:
    app = _target(_fresh_database(backend, request, tmp_path), tmp_path / "fresh")
    yield app
    app.extensions["tid.engine"].dispose()


def test_a_changed_package_is_refused_naming_what_failed(
    exported: bytes, fresh: Flask, tmp_path: Path
) -> None:
    with zipfile.ZipFile(io.BytesIO(exported)) as first:
        bills = first.read("data/bill.csv")
        pdf_name = next(n for n in first.namelist() if n.startswith("archive/"))
        pdf = bytearray(first.read(pdf_name))
        lines = first.read("data/journal_line.csv").decode("utf-8").split("\r\n")
    # A CSV row changed: its table's SHA-256 no longer agrees.
    changed = bills.replace(b",1580.00,", b",1.00,", 1)
    assert changed != bills
    (tmp_path / "row.zip").write_bytes(_rewritten(exported, {"data/bill.csv": changed}))
    said = _refused(fresh, tmp_path / "row.zip")
    assert "data/bill.csv" in said and "SHA-256" in said
    # An archived document changed: named.
    pdf[len(pdf) // 2] ^= 0x01
    (tmp_path / "pdf.zip").write_bytes(_rewritten(exported, {pdf_name: bytes(pdf)}))
    assert pdf_name in _refused(fresh, tmp_path / "pdf.zip")
    # Changed with its hash made to agree: an archived document no longer under its name.
    (tmp_path / "pdf2.zip").write_bytes(
        _rewritten(exported, {pdf_name: bytes(pdf)}, fix_hashes=True)
    )
    assert "does not hold the bytes" in _refused(fresh, tmp_path / "pdf2.zip")
    # A journal line changed with its hash made to agree: the journal no longer agrees with
    # its running balances, found after the rows were written, and all of them are undone.
    first_line = lines[1].split(",")
    first_line[-1] = "1.00"
    lines[1] = ",".join(first_line)
    lines[2] = lines[2].rsplit(",", 1)[0] + ",-1.00"
    forged = "\r\n".join(lines).encode("utf-8")
    (tmp_path / "forged.zip").write_bytes(
        _rewritten(exported, {"data/journal_line.csv": forged}, fix_hashes=True)
    )
    assert "do not agree with the journal" in _refused(fresh, tmp_path / "forged.zip")
    # A reference that does not resolve, and a missing table.
    dangling = bills.replace(b"\r\n1,1,", b"\r\n1,999999,", 1)
    (tmp_path / "fk.zip").write_bytes(
        _rewritten(exported, {"data/bill.csv": dangling}, fix_hashes=True)
    )
    assert "billing_run_id 999999 names no row of billing_run" in _refused(
        fresh, tmp_path / "fk.zip"
    )


def test_a_missing_table_is_refused(exported: bytes, fresh: Flask, tmp_path: Path) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(exported)) as first, zipfile.ZipFile(out, "w") as second:
        descriptor = json.loads(first.read("datapackage.json"))
        descriptor["resources"] = [
            r for r in descriptor["resources"] if r["path"] != "data/expenditure.csv"
        ]
        for info in first.infolist():
            if info.filename == "data/expenditure.csv":
                continue
            data = first.read(info.filename)
            if info.filename == "datapackage.json":
                data = json.dumps(descriptor).encode("utf-8")
            second.writestr(info, data)
    (tmp_path / "short.zip").write_bytes(out.getvalue())
    assert "lacks the table(s): expenditure" in _refused(fresh, tmp_path / "short.zip")


def test_a_file_that_is_no_package_is_refused(
    exported: bytes, fresh: Flask, tmp_path: Path
) -> None:
    (tmp_path / "not.zip").write_bytes(b"id,name\r\n1,San Juan\r\n")
    assert "not a ZIP" in _refused(fresh, tmp_path / "not.zip")
    (tmp_path / "big.zip").write_bytes(exported)
    assert "at most 1,000" in _refused(fresh, tmp_path / "big.zip", max_bytes=1000)
    for name in ("../../etc/cron.d/tid", "/tmp/evil", "data/../../x.csv", "archive\\x.pdf"):
        out = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(exported)) as first, zipfile.ZipFile(out, "w") as second:
            for info in first.infolist():
                second.writestr(info, first.read(info.filename))
            second.writestr(zipfile.ZipInfo(name), b"evil")
        (tmp_path / "escape.zip").write_bytes(out.getvalue())
        assert repr(name) in _refused(fresh, tmp_path / "escape.zip")
    # A ZIP whose entries unpack to more than the bound (a small file of zeros).
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bomb:
        bomb.writestr("datapackage.json", b" " * 200_000)
    (tmp_path / "bomb.zip").write_bytes(out.getvalue())
    assert "entries come to 200,000 bytes" in _refused(
        fresh, tmp_path / "bomb.zip", max_bytes=100_000
    )


def test_the_command_line_refuses_with_the_reason_and_writes_nothing(
    fresh: Flask, tmp_path: Path
) -> None:
    (tmp_path / "not.zip").write_bytes(b"hello")
    rows = _rows(fresh)
    said = fresh.test_cli_runner().invoke(args=["import", "district", str(tmp_path / "not.zip")])
    assert said.exit_code == 1
    assert "nothing was written" in said.output and "not a ZIP" in said.output
    assert _rows(fresh) == rows


def test_numbers_people_quote_are_never_taken_twice(
    exported: bytes, source: Flask, tmp_path: Path
) -> None:
    """A package of another district that holds notice numbers, entry keys or codes this
    installation already uses is refused, naming the first one (here: the same district
    under another name, into the installation it came from)."""
    with zipfile.ZipFile(io.BytesIO(exported)) as first:
        districts = first.read("data/district.csv").decode("utf-8")
    renamed = districts.replace(CONDADO, "Distrito de Prueba").encode("utf-8")
    (tmp_path / "renamed.zip").write_bytes(
        _rewritten(exported, {"data/district.csv": renamed}, fix_hashes=True)
    )
    said = _refused(source, tmp_path / "renamed.zip")
    assert "is already used in this installation" in said


def test_a_package_the_database_refuses_is_refused_whole(
    exported: bytes, fresh: Flask, tmp_path: Path
) -> None:
    """Two notices of one number in the package: the database's own rule refuses the second,
    and nothing of the import is kept."""
    with zipfile.ZipFile(io.BytesIO(exported)) as first:
        lines = first.read("data/notice.csv").decode("utf-8").split("\r\n")
    header = lines[0].split(",")
    at = header.index("number")
    one, two = lines[1].split(","), lines[2].split(",")
    two[at] = one[at]
    lines[2] = ",".join(two)
    (tmp_path / "twice.zip").write_bytes(
        _rewritten(
            exported, {"data/notice.csv": "\r\n".join(lines).encode("utf-8")}, fix_hashes=True
        )
    )
    assert "The database refused a row" in _refused(fresh, tmp_path / "twice.zip")


# --------------------------------------------------------------------------- moving in, then out


def test_a_district_that_moved_in_leaves_with_its_opening_files(
    app: Flask,
    session: Session,
    people: Any,
    backend: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
) -> None:
    """The opening position's source CSV files (named only inside its ``files`` JSON) are
    files of the package, and the import restores them, each checked against its SHA-256."""
    from tests.services.aboard.support import district_with_rolls, example_files, load
    from tid.models import OpeningPosition
    from tid.services.archive.store import archived_bytes
    from tid.services.district_record.export import export_to_file

    district_id = district_with_rolls(session, people)
    files = example_files("es")
    load(session, district_id, files)
    session.commit()
    wanted = {hashlib.sha256(data).hexdigest(): data for _name, data in files.values()}
    out = tmp_path / "moved-in.zip"
    export_to_file(session=session, district_id=district_id, folder=tmp_path, target=out)
    with zipfile.ZipFile(out) as package:
        for sha, data in wanted.items():
            assert package.read(f"archive/{sha}.csv") == data
    other = "postgresql" if backend == "sqlite" else "sqlite"
    target = _target(_fresh_database(other, request, tmp_path), tmp_path / "target")
    try:
        done = target.test_cli_runner().invoke(args=["import", "district", str(out)])
        assert done.exit_code == 0, done.output
        with target.app_context(), Session(target.extensions["tid.engine"]) as fresh:
            position = fresh.exec(select(OpeningPosition)).one()
            named = {f["sha256"] for f in json.loads(position.files)}
            assert named == set(wanted)
            for sha in named:
                assert archived_bytes(session=fresh, sha256=sha) == wanted[sha]
    finally:
        target.extensions["tid.engine"].dispose()


def test_a_package_without_an_opening_file_is_refused(
    app: Flask, session: Session, people: Any, fresh: Flask, tmp_path: Path
) -> None:
    """A package whose opening position names a source file it does not hold is refused,
    naming the row and the file."""
    from tests.services.aboard.support import district_with_rolls, example_files, load
    from tid.services.district_record.export import export_to_file

    district_id = district_with_rolls(session, people)
    files = example_files("es")
    load(session, district_id, files)
    session.commit()
    out = tmp_path / "moved-in.zip"
    export_to_file(session=session, district_id=district_id, folder=tmp_path, target=out)
    gone = hashlib.sha256(files["bank"][1]).hexdigest()
    with zipfile.ZipFile(out) as package:
        table = package.read("data/archived_document.csv").decode("utf-8")
    kept = "".join(line for line in table.splitlines(True) if not line.startswith(gone))
    changed = tmp_path / "changed.zip"
    changed.write_bytes(
        _rewritten(out.read_bytes(), {"data/archived_document.csv": kept.encode()}, fix_hashes=True)
    )
    said = _refused(fresh, changed)
    assert f"names the archived document {gone}" in said


def test_the_roll_check_leaves_with_the_district(
    source: Flask, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """The roll's yearly check is part of the record: the district's setting and each change
    with its answer come back on the new installation, tied to the same year's roll."""
    with source.app_context(), Session(source.extensions["tid.engine"]) as session:
        district_id = _condado(session)
        roll = session.exec(select(RollImport).where(RollImport.district_id == district_id)).first()
        assert roll is not None
        year = roll.fiscal_year
        session.add(RollCheckSetting(district_id=district_id, enabled=False, threshold_percent=30))
        session.add(
            RollChange(
                district_id=district_id,
                fiscal_year=year,
                roll_import_id=roll.id or 0,
                kind="value",
                number="012-345-678-90",
                before='{"assessed_value": "100000.00"}',
                after='{"assessed_value": "180000.00"}',
                impost_before=Decimal("250.00"),
                impost_after=Decimal("450.00"),
                status="sent_back",
                treatment="exclude",
                reason="Valor en revisión por el CRIM",
                answered_by="asociacion.condado@demo.tid.pr",
            )
        )
        session.commit()
    _export(source, district_id, tmp_path / "condado.zip")
    target = _target(_fresh_database("sqlite", request, tmp_path), tmp_path / "target")
    try:
        done = target.test_cli_runner().invoke(
            args=["import", "district", str(tmp_path / "condado.zip")]
        )
        assert done.exit_code == 0, done.output
        with target.app_context(), Session(target.extensions["tid.engine"]) as session:
            new_id = _condado(session)
            setting = session.get(RollCheckSetting, new_id)
            assert setting is not None
            assert (setting.enabled, setting.threshold_percent) == (False, 30)
            (change,) = session.exec(select(RollChange)).all()
            moved = session.get(RollImport, change.roll_import_id)
            assert moved is not None and (moved.district_id, moved.fiscal_year) == (new_id, year)
            assert (change.district_id, change.status, change.treatment) == (
                new_id,
                "sent_back",
                "exclude",
            )
            assert change.reason == "Valor en revisión por el CRIM"
            assert (change.impost_before, change.impost_after) == (
                Decimal("250.00"),
                Decimal("450.00"),
            )
    finally:
        target.extensions["tid.engine"].dispose()
