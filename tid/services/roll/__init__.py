"""The property roll of a district per fiscal year — 21 LPRA § 6653(3)(d), (5).

The association bills "each real property within the district" (§ 6653(3)(d)) and notifies
"all real property owners" by certified mail (§ 6653(5)): both need the roll, the list of the
district's parcels with their owners, mailing addresses and the attributes the ordinance's
formula uses. The roll comes as a CSV file (a CRIM extract or the association's own sheet).
The package, in the order a file goes:

- :mod:`.columns`: the roll's columns, their Spanish and English header aliases, labels and
  limits; any other column is an extra numeric attribute the formula may use;
- :mod:`.file_reading`: the file read once (size and row limits, UTF-8 or Windows-1252, the
  header mapped), with every finding;
- :mod:`.rows`: each row's cells checked, every bad cell listed with its row (the header
  is row 1) and its column: a bad or repeated cadastral number, a bad or negative number,
  a missing owner or mailing address, a cell that starts like a spreadsheet formula;
- :mod:`.importing`: ``preview_roll`` writes nothing; ``import_roll`` writes all rows or
  none (the caller commits once), and the same file imported again changes nothing;
- :mod:`.uploads`: an uploaded file and its checked preview kept until it is imported;
- :mod:`.read_back`: the roll read back for the pages and for billing.

The names other layers use are re-exported here (``roll.import_roll``), and the result types
(a preview kept by :mod:`.uploads` is a pickle that names them from here); code of the
package imports from the submodule that holds each.
"""

from __future__ import annotations

from tid.services.roll.columns import column_label, encoding_label, figure_columns
from tid.services.roll.file_reading import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_ROWS,
    ParsedRoll,
    check_size,
    parse_roll,
)
from tid.services.roll.importing import RollImportResult, RollPreview, import_roll, preview_roll
from tid.services.roll.read_back import (
    RollPage,
    attribute_names,
    decimal_attributes,
    district_attribute_names,
    fiscal_years,
    imports,
    parcel,
    property_history,
    roll_page,
)
from tid.services.roll.rows import RollRow
from tid.services.roll.uploads import (
    UPLOAD_TOKEN,
    delete_upload,
    load_preview,
    load_upload,
    purge_uploads,
    store_preview,
    store_upload,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_ROWS",
    "UPLOAD_TOKEN",
    "ParsedRoll",
    "RollImportResult",
    "RollPage",
    "RollPreview",
    "RollRow",
    "attribute_names",
    "check_size",
    "column_label",
    "decimal_attributes",
    "delete_upload",
    "district_attribute_names",
    "encoding_label",
    "figure_columns",
    "fiscal_years",
    "import_roll",
    "imports",
    "load_preview",
    "load_upload",
    "parcel",
    "parse_roll",
    "preview_roll",
    "property_history",
    "purge_uploads",
    "roll_page",
    "store_preview",
    "store_upload",
]
