"""What the export and the import agree on about the package: its layout, the columns of each
table's CSV, its Frictionless descriptor, and the ZIP's fixed entry attributes (the same data
gives byte-identical ZIPs)."""

from __future__ import annotations

import re
import zipfile
from typing import Any

from tid.services.district_record.cells import field_of, kind
from tid.services.district_record.tables import DROPPED_REFERENCE, Spec

FORMAT = 1
DESCRIPTOR = "datapackage.json"
EPOCH = (1980, 1, 1, 0, 0, 0)  # the ZIP format's first day: every entry's time
EXTENSIONS = {
    "application/pdf": "pdf",
    "text/csv": "csv",
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/tiff": "tif",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.oasis.opendocument.text": "odt",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "application/vnd.oasis.opendocument.spreadsheet": "ods",
}
# The names a package's entries may have: nothing else is read (no folder, no path up).
ENTRY = re.compile(r"^(datapackage\.json|data/[a-z_]+\.csv|(archive|files)/[0-9a-f]{64}\.[a-z]+)$")


def csv_path(spec: Spec) -> str:
    return f"data/{spec.name}.csv"


def file_path(spec: Spec, sha256: str, media_type: str) -> str:
    return f"{spec.folder}/{sha256}.{EXTENSIONS.get(media_type, 'bin')}"


def columns(spec: Spec) -> list[tuple[str, str]]:
    """The CSV's columns (name, kind); a table of files has the ``path`` of each last (its
    bytes are the file)."""
    found = [
        (column.name, kind(column)) for column in spec.table.columns if kind(column) != "binary"
    ]
    if spec.folder:
        found.append(("path", "string"))
    return found


def references(spec: Spec) -> list[tuple[str, str, str]]:
    """The columns that refer to another row: (column, table, its column); those naming an
    account are left out (exported empty)."""
    found = []
    for column in spec.table.columns:
        for key in column.foreign_keys:
            target = key.column.table.name
            if target != DROPPED_REFERENCE:
                found.append((column.name, str(target), key.column.name))
    found += [(name, "archived_document", "sha256") for name in spec.archived_refs]
    return found


def dropped(spec: Spec) -> set[str]:
    """The columns exported empty: those naming an account."""
    return {
        column.name
        for column in spec.table.columns
        for key in column.foreign_keys
        if key.column.table.name == DROPPED_REFERENCE
    }


def primary_key(spec: Spec) -> list[str]:
    return [column.name for column in spec.table.primary_key.columns]


def schema(spec: Spec) -> dict[str, Any]:
    fields = []
    for column in spec.table.columns:
        if kind(column) == "binary":
            continue
        fields.append(field_of(column))
    if spec.folder:
        fields.append(
            {"name": "path", "type": "string", "description": "The file in this package."}
        )
    keys = [
        {
            "fields": name,
            "reference": {"resource": "" if table == spec.name else table, "fields": target},
        }
        for name, table, target in references(spec)
    ]
    return {
        "fields": fields,
        "primaryKey": primary_key(spec),
        "foreignKeys": keys,
        "missingValues": [""],
    }


def zip_info(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=EPOCH)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3
    info.external_attr = 0o644 << 16
    return info


def table_resource(spec: Spec, size: int, sha256: str, rows: int) -> dict[str, Any]:
    resource: dict[str, Any] = {
        "name": spec.name,
        "path": csv_path(spec),
        "profile": "tabular-data-resource",
        "format": "csv",
        "mediatype": "text/csv",
        "encoding": "utf-8",
        "bytes": size,
        "hash": f"sha256:{sha256}",
        "tid:rows": rows,
        "schema": schema(spec),
    }
    if spec.description:
        resource["description"] = spec.description
    return resource
