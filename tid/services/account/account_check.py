"""``tid account verify``: the special accounts checked from the journal alone.

For every district: the number of entries and lines, every entry balanced (its lines add up
to zero), and each account's balance. Two copies of a database (a restored backup, say)
with the same journal print the same document. Sums are made in Python over the lines'
integer cents: exact on both databases, whatever the totals.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

from sqlalchemy import select as sa_select
from sqlmodel import Session, col

from tid.models import JournalEntry, JournalLine
from tid.rules.money import money_str


def verify(*, session: Session, district_id: int | None = None) -> dict[str, Any]:
    stmt = (
        sa_select(
            col(JournalEntry.district_id),
            col(JournalLine.entry_id),
            col(JournalLine.account),
            col(JournalLine.amount),
        )
        .join(JournalEntry, col(JournalEntry.id) == col(JournalLine.entry_id))
        .order_by(col(JournalLine.id))
    )
    if district_id is not None:
        stmt = stmt.where(col(JournalEntry.district_id) == district_id)
    balances: dict[int, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    per_entry: dict[int, Decimal] = defaultdict(Decimal)
    lines: dict[int, int] = defaultdict(int)
    entries: dict[int, set[int]] = defaultdict(set)
    for district, entry_id, account, amount in session.execute(stmt):
        balances[district][account] += amount
        per_entry[entry_id] += amount
        lines[district] += 1
        entries[district].add(entry_id)
    unbalanced = sorted(e for e, total in per_entry.items() if total != 0)
    districts = {
        str(d): {
            "entries": len(entries[d]),
            "lines": lines[d],
            "balances": {a: money_str(v) for a, v in sorted(balances[d].items())},
            "total": money_str(sum(balances[d].values(), Decimal(0))),
        }
        for d in sorted(balances)
    }
    ok = not unbalanced and all(v["total"] == "0.00" for v in districts.values())
    return {"ok": ok, "unbalanced_entries": unbalanced, "districts": districts}
