"""The vocabulary of codes (tid/rules/vocab/): every label in Spanish in the catalog, codes
listed once, unknown codes shown as written, each vocabulary's flags as its rule reads them."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from tid.rules.messages import N_, Message, render
from tid.rules.vocab import (
    ACCOUNTS,
    AUDIT_ACTIONS,
    AUDIT_FIELDS,
    AUDIT_RECORDS,
    ENTRY_KINDS,
    EXEMPTIONS,
    FORMULA_FIGURES,
    LIEN_KINDS,
    LODGING_TYPES,
    ROLL_COLUMNS,
    Term,
    Vocabulary,
    formula_name_label,
    lodging_label,
    recorded_kinds,
    reversible_kinds,
)
from tid.rules.vocab.lien_kinds import (
    ABOVE,
    IMPOST,
    IMPOST_KIND,
    ranked_by_kind,
    ranked_line_label,
)
from tid.rules.vocab.lodging_types import act272_types, irc1994_types
from tid.rules.vocab.roll_columns import (
    TEXT,
    formula_columns,
    header_aliases,
    required_columns,
    text_columns,
)

CATALOG = Path(__file__).resolve().parents[2] / "tid/translations/es/LC_MESSAGES/messages.po"
VOCABULARIES = (
    LIEN_KINDS,
    LODGING_TYPES,
    EXEMPTIONS,
    ENTRY_KINDS,
    ACCOUNTS,
    ROLL_COLUMNS,
    FORMULA_FIGURES,
    AUDIT_ACTIONS,
    AUDIT_RECORDS,
    AUDIT_FIELDS,
)


def _msgids() -> list[str]:
    """Every msgid the vocabularies give: labels and the words their rules print."""
    ids = [term.label for vocabulary in VOCABULARIES for term in vocabulary]
    ids += [kind.what for kind in LIEN_KINDS if kind.what]
    ids += [exemption.citation for exemption in EXEMPTIONS]
    ids += [column.variable for column in ROLL_COLUMNS if column.variable]
    return ids


def test_every_label_has_its_spanish_in_the_catalog() -> None:
    with CATALOG.open("rb") as f:
        catalog = read_po(f)
    translated = {message.id for message in catalog if message.id and message.string}
    assert [msgid for msgid in _msgids() if msgid not in translated] == []


def test_a_label_is_a_message_and_an_unknown_code_is_shown_as_written() -> None:
    label = LIEN_KINDS.label("mortgage")
    assert isinstance(label, Message) and label == "Mortgage"
    assert LIEN_KINDS.label("a code of older data") == "a code of older data"
    assert AUDIT_ACTIONS.label("user.login") == "Signed in"
    assert lodging_label("timeshare") == "Timeshare" and lodging_label("hotel") == "Hotel"
    assert formula_name_label("assessed_value") == "assessed value"
    assert formula_name_label("budget") == "budget"
    assert formula_name_label("owner_names") is None  # a column no formula reads
    assert formula_name_label("floors") is None  # a roll file's own attribute


def test_a_code_is_listed_once() -> None:
    with pytest.raises(ValueError, match="listed twice"):
        Vocabulary("test", (Term("a", N_("A")), Term("a", N_("B"))))


def test_the_order_is_the_place_in_the_vocabulary() -> None:
    assert LIEN_KINDS.order(LIEN_KINDS.codes()[0]) == 0
    assert LIEN_KINDS.codes()[-1] == "other"
    assert [t.code for t in ENTRY_KINDS] == list(ENTRY_KINDS.codes())


def test_a_derived_value_follows_a_change_of_the_records(monkeypatch: pytest.MonkeyPatch) -> None:
    before = text_columns()
    assert text_columns() is before  # computed once
    monkeypatch.setattr(ROLL_COLUMNS, "_terms", {c.code: c for c in ROLL_COLUMNS if c.numeric})
    assert text_columns() == ()


def test_lien_kinds_rank_as_the_statute_says() -> None:
    assert ranked_by_kind() == {
        "fiscal_transferred_tax_debt": "(a)",
        "municipal_property_tax": "(b)",
        "infrastructure_impost": "(d)",
    }
    assert [k.code for k in LIEN_KINDS if k.rank == IMPOST] == [IMPOST_KIND]
    assert all(k.paragraph for k in LIEN_KINDS if k.rank == ABOVE)
    assert all(k.what for k in LIEN_KINDS if k.rank != IMPOST)
    assert IMPOST_KIND not in recorded_kinds() and len(recorded_kinds()) == len(LIEN_KINDS) - 1


def test_lodging_types_of_each_regime() -> None:
    assert irc1994_types() == (
        "hotel",
        "apartment_hotel",
        "guest_house",
        "casino_hotel",
        "motel",
        "parador",
    )
    assert set(irc1994_types()) < set(act272_types()) and len(act272_types()) == 11


def test_the_reversible_entries_are_those_the_journal_reverses() -> None:
    assert reversible_kinds() == {"payment", "credit_applied", "expenditure"}
    assert not {"bill", "bill_superseded", "reversal"} & reversible_kinds()


def test_the_journal_uses_the_vocabulary_s_labels() -> None:
    from tid.services import ledger

    assert ENTRY_KINDS.msgids() == ledger.ENTRY_KINDS
    assert ACCOUNTS.msgids() == ledger.ACCOUNT_LABELS
    assert set(ledger.MEMOS) == set(ENTRY_KINDS.codes())


def test_the_journal_reverses_the_kinds_the_vocabulary_says_are_reversible() -> None:
    from types import SimpleNamespace

    from tid.services import ledger

    for kind in ENTRY_KINDS:
        entry = SimpleNamespace(kind=kind.code, reverses_id=None)
        assert ledger.reversible(entry) is kind.reversible, kind.code
        assert not ledger.reversible(SimpleNamespace(kind=kind.code, reverses_id=1))


def test_roll_columns_headers_and_formula_names() -> None:
    aliases = header_aliases()
    named = [name for column in ROLL_COLUMNS for name in column.headers]
    assert len(named) == len(set(named))  # a header names one column
    assert set(aliases.values()) == set(ROLL_COLUMNS.codes())  # every column has a header
    assert aliases["valor_tasado"] == "assessed_value" and aliases["frente"] == "frontage"
    assert required_columns() == {
        "cadastral_number",
        "owner_names",
        "mailing_line1",
        "mailing_zip",
        "assessed_value",
    }
    assert all(c.limit > 0 for c in ROLL_COLUMNS if c.kind == TEXT)
    assert set(formula_columns()) == {
        "assessed_value",
        "land_area",
        "built_area",
        "use_class",
        "rooms",
        "frontage",
    }


def test_a_ranked_line_says_what_an_impost_s_unsecured_charges_are() -> None:
    assert ranked_line_label("mortgage", "secured") == "Mortgage"
    line = ranked_line_label(IMPOST_KIND, "unsecured_charges")
    assert render(line, "en") == "District impost — surcharges and interest (not secured)"
    assert render(line, "es") == "Imposición del distrito — recargos e intereses (no garantizados)"
