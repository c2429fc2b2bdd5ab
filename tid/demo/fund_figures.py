"""The demo's saved reform of the Equalization Fund (its invented figures are
:mod:`tid.rules.fund_example`, which the reform pages show too)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlmodel import Session, col, select

from tid.models import SavedReform
from tid.services import reform_library

DEMO_REFORM: dict[str, Any] = {
    "title": "Lotería al 40 % y garantía desde el 45 %",
    "description": (
        "Propuesta de ejemplo: el Fondo de Equiparación recibe el 40 % del ingreso neto de la "
        "Lotería Adicional (hoy el 35 %), y la garantía protege a los municipios cuya "
        "asignación del AF2007-08 fue al menos el 45 % de sus ingresos (hoy el 50 %)."
    ),
    "changes": [
        {"parameter": "equalization.lottery_share_rate", "from": "2025-07-01", "value": "0.40"},
        {
            "parameter": "equalization.hold_harmless.threshold",
            "from": "2025-07-01",
            "value": "0.45",
        },
    ],
}


def load_reform(session: Session, config: Mapping[str, Any]) -> None:
    """A saved reform of the Equalization Fund (once: a second run finds it)."""
    found = session.exec(
        select(SavedReform).where(col(SavedReform.title) == DEMO_REFORM["title"])
    ).first()
    if found is None:
        reform_library.save_reform(session=session, document=DEMO_REFORM)
