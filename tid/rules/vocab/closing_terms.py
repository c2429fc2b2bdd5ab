"""The documents issued about a property's closing (the codes ``issued_document.kind``
keeps), as pages, PDFs, the verification page and the archive's check name them, each with
the letter its references start with (``C-2026-000001``)."""

from __future__ import annotations

from dataclasses import dataclass

from tid.rules.messages import N_
from tid.rules.vocab.terms import Term, Vocabulary


@dataclass(frozen=True)
class IssuedKind(Term):
    prefix: str = ""  # the letter of its references


ISSUED_KINDS: Vocabulary[IssuedKind] = Vocabulary(
    "issued documents",
    (
        IssuedKind("payoff", N_("Payoff quote"), "P"),
        IssuedKind("lien_certificate", N_("Certificate of the impost lien"), "C"),
        IssuedKind("release", N_("Release of the impost lien"), "R"),
    ),
)


def issued_kind_label(kind: str) -> str:
    """What a kind of issued document is called (a message)."""
    return ISSUED_KINDS.label(kind)
