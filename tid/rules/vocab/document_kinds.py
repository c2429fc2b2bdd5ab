"""The legislature's file: the kinds of document a petition's file holds, the steps of the
petition a document may belong to, and how the CRIM's copy of the ordinance was sent
(21 LPRA § 6653(2)–(4), (7))."""

from __future__ import annotations

import re

from tid.rules.messages import N_, Message
from tid.rules.vocab.terms import Term, Vocabulary

PUBLICATION_PROOF = "publication_proof"
CRIM_TRANSMITTAL = "crim_transmittal"
CRIM_ACKNOWLEDGEMENT = "correspondence"
ORDINANCE_SIGNED = "ordinance_signed"
STUDY = "study"

DOCUMENT_KINDS: Vocabulary[Term] = Vocabulary(
    "document kinds",
    (
        Term("petition", N_("Petition")),
        Term("signatures", N_("Owners' signatures")),
        Term("plan", N_("Plan")),
        Term(STUDY, N_("Study")),
        Term("report", N_("Committee report")),
        Term(ORDINANCE_SIGNED, N_("Ordinance as signed")),
        Term(PUBLICATION_PROOF, N_("Publication proof (newspaper page)")),
        Term(CRIM_TRANSMITTAL, N_("CRIM transmittal")),
        Term("correspondence", N_("Correspondence")),
        Term("other", N_("Other")),
    ),
)

# The step of the petition's life a document belongs to ("" is the petition as received).
DOCUMENT_STEPS: Vocabulary[Term] = Vocabulary(
    "document steps",
    (
        Term("", N_("The petition as received")),
        Term("findings", N_("Findings")),
        Term("ordinance", N_("Ordinance")),
        Term("decision", N_("Mayor's decision")),
        Term("publication", N_("Publication")),
        Term("crim", N_("Copy to the CRIM")),
    ),
)

SENT_BY: Vocabulary[Term] = Vocabulary(
    "sent by",
    (
        Term("certified_mail", N_("Certified mail")),
        Term("mail", N_("Mail")),
        Term("hand", N_("By hand")),
        Term("email", N_("Email")),
    ),
)


# The titles the app writes itself for the documents it adds to a file: stored in their one
# (English) form, said in the reader's language when read (:func:`document_title`).
TRANSMITTAL_TITLE = N_("Transmittal of ordinance %(number)s to the CRIM")
ACKNOWLEDGEMENT_TITLE = N_("Acknowledgement of receipt from the CRIM")
_TRANSMITTAL = re.compile(r"Transmittal of ordinance (.*) to the CRIM")


def document_title(title: str, kind: str | None = None) -> str:
    """A document's title as a reader reads it: a title the app wrote (the CRIM's letter, its
    acknowledgement; of kind ``kind`` when known) as a message in the reader's language, the
    ordinance's number kept; any other title is the clerk's words, as written."""
    found = _TRANSMITTAL.fullmatch(title)
    if found and kind in (None, CRIM_TRANSMITTAL):
        return Message(TRANSMITTAL_TITLE, number=found.group(1))
    if title == ACKNOWLEDGEMENT_TITLE and kind in (None, CRIM_ACKNOWLEDGEMENT):
        return Message(ACKNOWLEDGEMENT_TITLE)
    return title
