"""The Equalization Fund's inputs for Puerto Rico's 78 municipalities: invented figures, of a
plausible size, for trying a reform of the fund when no real figures are at hand. Every page
and file that shows them says they are invented. And the demo's saved reform of the fund."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from sqlmodel import Session, col, select

from tid.models import SavedReform
from tid.rules.money import allocate, money_str
from tid.services import reform_library

MUNICIPALITIES = (
    "Adjuntas", "Aguada", "Aguadilla", "Aguas Buenas", "Aibonito", "Añasco", "Arecibo",
    "Arroyo", "Barceloneta", "Barranquitas", "Bayamón", "Cabo Rojo", "Caguas", "Camuy",
    "Canóvanas", "Carolina", "Cataño", "Cayey", "Ceiba", "Ciales", "Cidra", "Coamo",
    "Comerío", "Corozal", "Culebra", "Dorado", "Fajardo", "Florida", "Guánica", "Guayama",
    "Guayanilla", "Guaynabo", "Gurabo", "Hatillo", "Hormigueros", "Humacao", "Isabela",
    "Jayuya", "Juana Díaz", "Juncos", "Lajas", "Lares", "Las Marías", "Las Piedras", "Loíza",
    "Luquillo", "Manatí", "Maricao", "Maunabo", "Mayagüez", "Moca", "Morovis", "Naguabo",
    "Naranjito", "Orocovis", "Patillas", "Peñuelas", "Ponce", "Quebradillas", "Rincón",
    "Río Grande", "Sabana Grande", "Salinas", "San Germán", "San Juan", "San Lorenzo",
    "San Sebastián", "Santa Isabel", "Toa Alta", "Toa Baja", "Trujillo Alto", "Utuado",
    "Vega Alta", "Vega Baja", "Vieques", "Villalba", "Yabucoa", "Yauco",
)  # fmt: skip

FISCAL_YEAR = "2025-26"
LOTTERY_NET_INCOME = Decimal("95000000.00")
GF_NET_REVENUES = Decimal("11800000000.00")
EXCLUDED_REVENUES = Decimal("400000000.00")
GF_RATE = Decimal("0.025")


def _draw(seed: int, low: int, high: int) -> int:
    """A fixed pseudo-random whole number in [low, high] (the same on every machine)."""
    value = (seed * 2654435761 + 97) % 2**32
    return low + value % (high - low + 1)


def document() -> dict[str, Any]:
    """The ``equalization`` calculator's document for the 78 municipalities (invented)."""
    gf_share = ((GF_NET_REVENUES - EXCLUDED_REVENUES) * GF_RATE).quantize(Decimal("0.01"))
    weights = [Decimal(_draw(i + 1, 40, 400)) for i in range(len(MUNICIPALITIES))]
    bases = allocate(gf_share, weights)
    rows = []
    for i, (name, base) in enumerate(zip(MUNICIPALITIES, bases, strict=True)):
        # One municipality in eight lived mostly on the fund in FY2007-08 (the protected),
        # and received more then than its base now.
        protected = i % 8 == 3
        factor = _draw(i + 7, 104, 130) if protected else _draw(i + 7, 70, 95)
        allocation = (base * Decimal(factor) / 100).quantize(Decimal("0.01"))
        share = _draw(i + 11, 46, 70) if protected else _draw(i + 13, 8, 45)
        income = (allocation * 100 / Decimal(share)).quantize(Decimal("0.01"))
        rows.append(
            {
                "name": name,
                "base": money_str(base),
                "allocation_2007_08": money_str(allocation),
                "income_2007_08": money_str(income),
            }
        )
    return {
        "fiscal_year": FISCAL_YEAR,
        "lottery_net_income": money_str(LOTTERY_NET_INCOME),
        "gf_net_revenues": money_str(GF_NET_REVENUES),
        "excluded_revenues": money_str(EXCLUDED_REVENUES),
        "municipalities": rows,
    }


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
