"""The documents issued about a property's closing (the codes ``issued_document.kind``
keeps), as pages, PDFs and the verification page name them."""

from __future__ import annotations

from tid.rules.messages import N_
from tid.rules.vocab.terms import Term, Vocabulary

ISSUED_KINDS: Vocabulary[Term] = Vocabulary(
    "issued documents",
    (
        Term("payoff", N_("Payoff quote")),
        Term("lien_certificate", N_("Certificate of the impost lien")),
        Term("release", N_("Release of the impost lien")),
    ),
)


def issued_kind_label(kind: str) -> str:
    """What a kind of issued document is called (a message)."""
    return ISSUED_KINDS.label(kind)
