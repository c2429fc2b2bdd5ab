"""The legislature's file: the kinds of document a petition's file holds, the steps of the
petition a document may belong to, and how the CRIM's copy of the ordinance was sent
(21 LPRA § 6653(2)–(4), (7))."""

from __future__ import annotations

from tid.rules.messages import N_
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
