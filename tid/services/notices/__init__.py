"""Certified-mail notices to the owners — 21 LPRA § 6653(5), with the lien of § 6653(8).

The association notifies every owner by certified mail of the impost and its due date within
30 days of receiving the ordinance, then at least every later year of the term, and each
notice tells the consequences of not paying on time. The package, in the order a run goes:

- :mod:`.contents`: what one notice says (the bill, the ordinance, the sender), its kind;
- :mod:`.creation`: which bills get a notice, checked, and ``create_batch``;
- :mod:`.rendering`: the batch rendered slice by slice (tid/render/notice.py) and stored with
  its notices, each PDF archived by its SHA-256 (:mod:`.archived`);
- :mod:`.access`: the random access code printed on each notice (only its HMAC is kept) and
  the portal link of its QR code;
- :mod:`.fees`: postage and fees per piece; :mod:`.article_numbers`: the certified-mail
  article numbers (one by one or from a CSV file, :mod:`.files`);
- :mod:`.mailing`: ``mail_batch`` and the PS Form 3877 manifest; from then on a notice's row
  is frozen (tid/models/bills_and_notices.py refuses the UPDATE);
- :mod:`.deliveries`: delivery reports (CSV or one by one); :mod:`.remailing`: the returned
  notices sent again;
- :mod:`.notice_deadlines`: the 30-day clock and the yearly notices; :mod:`.pages`: reads for
  the pages.

The names other layers use are re-exported here (``notice_service.create_batch``); code of
the package imports from the submodule that holds each.
"""

from __future__ import annotations

from tid.services.archive.store import archive, archived_bytes, notice_pdf_bytes
from tid.services.notices.access_codes import (
    ACCESS_ALPHABET,
    ACCESS_LENGTH,
    access_code_hash,
    new_access_code,
    normalize_notice_number,
    portal_url,
)
from tid.services.notices.article_numbers import import_article_numbers, set_article_number
from tid.services.notices.creation import check_batch, create_batch
from tid.services.notices.deliveries import (
    RETURNED,
    import_deliveries,
    latest_delivery,
    record_delivery,
)
from tid.services.notices.fees import (
    batch_fees,
    default_fees,
    default_receipt_fee,
    fees_citation,
    parse_fees,
    set_batch_fees,
)
from tid.services.notices.mailing import (
    batch_label,
    check_mailing,
    draft_name,
    mail_batch,
    manifest_draft,
    manifest_pdf,
    render_draft,
)
from tid.services.notices.notice_deadlines import (
    dashboard,
    notice_deadline,
    schedule_yearly_notices,
)
from tid.services.notices.pages import (
    AWAITING,
    NOT_MAILED,
    RETURNED_ANY,
    BatchView,
    batch,
    batch_notices,
    batch_page,
    batch_view,
    batches,
    notice,
    sender_defaults,
)
from tid.services.notices.remailing import remail_notices
from tid.services.notices.rendering import next_batch_number

__all__ = [
    "ACCESS_ALPHABET",
    "ACCESS_LENGTH",
    "AWAITING",
    "NOT_MAILED",
    "RETURNED",
    "RETURNED_ANY",
    "BatchView",
    "access_code_hash",
    "archive",
    "archived_bytes",
    "batch",
    "batch_fees",
    "batch_label",
    "batch_notices",
    "batch_page",
    "batch_view",
    "batches",
    "check_batch",
    "check_mailing",
    "create_batch",
    "dashboard",
    "default_fees",
    "default_receipt_fee",
    "draft_name",
    "fees_citation",
    "import_article_numbers",
    "import_deliveries",
    "latest_delivery",
    "mail_batch",
    "manifest_draft",
    "manifest_pdf",
    "new_access_code",
    "next_batch_number",
    "normalize_notice_number",
    "notice",
    "notice_deadline",
    "notice_pdf_bytes",
    "parse_fees",
    "portal_url",
    "record_delivery",
    "remail_notices",
    "render_draft",
    "schedule_yearly_notices",
    "sender_defaults",
    "set_article_number",
    "set_batch_fees",
]
