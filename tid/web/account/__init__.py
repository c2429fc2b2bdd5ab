"""The special account of 21 LPRA § 6653(6), (8): the dashboard with the cap's line, payments
(by hand and from the bank's deposit file), expenditures on authorized purposes, reversals,
the bank balance check, delinquency and the lien priority, and the yearly statement for audit.

One blueprint, ``account`` (:mod:`.blueprint`), its pages in one module per family:
:mod:`.dashboard`, :mod:`.journal` (and reversals), :mod:`.payment_pages`,
:mod:`.spending` (expenditures and purposes), :mod:`.bank`, :mod:`.delinquency`,
:mod:`.property_liens`, :mod:`.statement` (and the year's lock), :mod:`.budget_pages` (the
year's budget and its actuals), :mod:`.aboard` (a district
moving in with its opening position); what they read from a request
in :mod:`.fields`, and their documents of record in :mod:`.downloads`.

An association works on its own district; an administrator on every district; the auditor
reads every district and the municipality's clerk its districts, neither writes.
"""

from __future__ import annotations

from tid.web.account import (  # noqa: F401 - each registers its routes on the blueprint
    aboard,
    bank,
    budget_pages,
    closing_pages,
    dashboard,
    delinquency,
    journal,
    lien_records,
    owner_pages,
    payment_pages,
    property_liens,
    spending,
    statement,
)
from tid.web.account.blueprint import READERS, WRITERS, bp
from tid.web.account.downloads import (
    IN_REQUEST_ROWS,
    LARGE_DOCUMENTS,
    LargeDocument,
    document_rows,
    too_large,
)
from tid.web.account.fields import FORM_TOKEN_MISSING

__all__ = [
    "FORM_TOKEN_MISSING",
    "IN_REQUEST_ROWS",
    "LARGE_DOCUMENTS",
    "READERS",
    "WRITERS",
    "LargeDocument",
    "bp",
    "document_rows",
    "too_large",
]
