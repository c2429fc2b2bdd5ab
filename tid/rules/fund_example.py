"""The Equalization Fund's inputs for Puerto Rico's 78 municipalities: invented figures, of a
plausible size, for trying a reform of the fund when no real figures are at hand (the reform
pages and the reform note start from them). Every page and file that shows them says they are
invented."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tid.rules.money import allocate, money_str

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
