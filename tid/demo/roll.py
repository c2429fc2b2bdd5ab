"""A realistic property roll for the demo district (Viejo San Juan) and for benchmarks.

Deterministic: the same seed and size give the same bytes, so the demo file's SHA-256 is
stable and importing it twice changes nothing. Spanish headers, Spanish names, Puerto Rico
mailing addresses with urbanization lines, CRIM cadastral numbers, mixed use classes with
hotels and guest houses that have rooms, and one extra numeric column (``pisos``, floors)
that a formula may use.
"""

from __future__ import annotations

import csv
import io
import random
from decimal import Decimal

HEADERS = (
    "Número de Catastro",
    "Propietario",
    "Copropietario",
    "Urbanización",
    "Dirección Postal 1",
    "Dirección Postal 2",
    "Pueblo",
    "Estado",
    "Código Postal",
    "Dirección Física",
    "Valor Tasado",
    "Área Terreno",
    "Área Construida",
    "Uso",
    "Habitaciones",
    "Frente",
    "Pisos",
)

# fmt: off
_GIVEN = (
    "José", "María", "Luis", "Carmen", "Juan", "Ana", "Carlos", "Rosa", "Miguel", "Luz",
    "Jorge", "Migdalia", "Ramón", "Gladys", "Pedro", "Nilda", "Ángel", "Wanda", "Héctor",
    "Yolanda", "Rafael", "Iris", "Edwin", "Maritza", "Víctor", "Zoraida", "Félix", "Sonia",
    "Efraín", "Lourdes", "Orlando", "Ivette", "Rubén", "Marisol", "Wilfredo", "Brenda",
)
_SURNAMES = (
    "Rivera", "Rodríguez", "Santiago", "Colón", "Torres", "Ortiz", "Cruz", "González",
    "Pérez", "Ramos", "Vázquez", "Morales", "Díaz", "Figueroa", "Maldonado", "Hernández",
    "Martínez", "Reyes", "Medina", "Negrón", "Ayala", "Acevedo", "Burgos", "Quiñones",
    "Rosario", "Marrero", "Meléndez", "Cintrón", "Nieves", "Velázquez", "Báez", "Muñiz",
)
_COMPANIES = (
    "Inversiones del Cristo LLC", "Desarrollos Fortaleza Inc", "Bahía Urbana LLC",
    "Casa Luna Holdings LLC", "Propiedades La Puntilla Corp", "Grupo San Sebastián LLC",
    "Paseo de la Princesa Realty Inc", "Murallas Capital LLC", "Adoquines Partners LLC",
)
_HOTELS = (
    "Hotel El Convento Inc", "Hotel Milano Corp", "Casablanca Hotel LLC",
    "Hotel Villa Herencia Inc", "Da House Hotel LLC", "Hotel Gallery Inn Corp",
    "Decanter Hotel LLC", "Hotel Castillo San Juan Inc",
)
_STREETS = (
    "Calle del Cristo", "Calle Fortaleza", "Calle San Francisco", "Calle Tetuán",
    "Calle Luna", "Calle San Sebastián", "Calle Sol", "Calle Norzagaray", "Calle Tanca",
    "Calle San José", "Calle O'Donnell", "Calle Cruz", "Calle Imperial", "Calle Recinto Sur",
    "Calle Caleta de las Monjas", "Calle Clavel", "Calle Salvador Brau", "Calle Comercio",
    "Calle Marina", "Calle Gámbaro", "Calle San Justo", "Calle Mercado", "Calle Virtud",
)
# fmt: on
# (urbanization, street, city, ZIP)
_URBANIZATIONS = (
    ("URB GARDEN HILLS", "CALLE 5", "GUAYNABO", "00966"),
    ("URB TORRIMAR", "CALLE TOLEDO", "GUAYNABO", "00966"),
    ("URB SANTA MARIA", "CALLE ORQUIDEA", "SAN JUAN", "00927"),
    ("URB EL VEDADO", "CALLE BONAFOUX", "SAN JUAN", "00918"),
    ("URB UNIVERSITY GARDENS", "CALLE HARVARD", "SAN JUAN", "00927"),
    ("URB LOS PASEOS", "CALLE PASEO DEL PARQUE", "SAN JUAN", "00926"),
    ("URB VILLA NEVAREZ", "CALLE 17", "SAN JUAN", "00927"),
    ("URB SAGRADO CORAZON", "CALLE SAN EDMUNDO", "SAN JUAN", "00926"),
    ("URB VILLA CAROLINA", "CALLE 40", "CAROLINA", "00985"),
    ("URB SANTA ROSA", "CALLE 12", "BAYAMON", "00959"),
    ("URB LEVITTOWN", "CALLE LUISA", "TOA BAJA", "00949"),
    ("URB CONSTANCIA", "CALLE SOLLER", "PONCE", "00717"),
    ("URB ALTAMESA", "CALLE SANTA INES", "SAN JUAN", "00921"),
    ("URB CAPARRA HEIGHTS", "CALLE ESMIRNA", "SAN JUAN", "00920"),
)
# (use class, weight, assessed value range in dollars; CRIM values are at 1957-58 prices)
_USES = (
    ("residencial", 46, (9_000, 60_000)),
    ("comercial", 22, (20_000, 180_000)),
    ("mixto", 12, (18_000, 120_000)),
    ("restaurante", 8, (25_000, 140_000)),
    ("hospederia", 5, (40_000, 220_000)),
    ("hotel", 3, (250_000, 1_800_000)),
    ("institucional", 2, (30_000, 400_000)),
    ("estacionamiento", 2, (15_000, 90_000)),
)

# Written with the formula's Spanish names (valor_tasado for assessed_value), as a Spanish
# ordinance writes it; the English names read the same.
DEMO_FORMULA = (
    'max(75.00, 0.0125 * valor_tasado) + if(clase_de_uso == "hotel" or '
    'clase_de_uso == "hospederia", 15.00 * habitaciones, 0)'
)


def _person(rng: random.Random) -> str:
    given = rng.choice(_GIVEN)
    return f"{given} {rng.choice(_SURNAMES)} {rng.choice(_SURNAMES)}"


def _money(rng: random.Random, low: int, high: int) -> str:
    # Hundreds of dollars, as the CRIM rounds them; a few carry cents.
    value = Decimal(rng.randrange(low // 100, high // 100 + 1) * 100)
    if rng.random() < 0.1:
        value += Decimal(rng.randrange(1, 100)) / 100
    return f"{value:.2f}"


def roll_rows(count: int, *, seed: int = 2026) -> list[list[str]]:
    """``count`` roll rows for Viejo San Juan (cadastral numbers unique by construction)."""
    rng = random.Random(seed)
    uses = [u for u, w, _ in _USES for _ in range(w)]
    ranges = {u: r for u, _, r in _USES}
    rows: list[list[str]] = []
    for i in range(count):
        use = rng.choice(uses)
        low, high = ranges[use]
        block, lot = divmod(i, 90)
        cadastral = f"040-{10 + block // 1000:03d}-{block % 1000:03d}-{lot + 10:02d}"
        if use in ("residencial", "mixto") and rng.random() < 0.15:
            cadastral += f"-{rng.randrange(1, 40):03d}"  # a condominium unit
        street = rng.choice(_STREETS)
        number = rng.randrange(1, 420)
        physical = f"{street} {number}, San Juan, PR 00901"
        co_owner = ""
        if use == "hotel":
            owner = rng.choice(_HOTELS)
        elif use in ("comercial", "restaurante", "hospederia") and rng.random() < 0.5:
            owner = rng.choice(_COMPANIES)
        elif rng.random() < 0.08:
            owner = f"Sucn. {rng.choice(_SURNAMES)} {rng.choice(_SURNAMES)}"
        else:
            owner = _person(rng)
            if rng.random() < 0.3:
                co_owner = _person(rng)
        kind = rng.random()
        if kind < 0.55:
            urbanization, mail_street, city, zip_code = rng.choice(_URBANIZATIONS)
            line1, line2 = f"{rng.randrange(1, 2000)} {mail_street}", ""
        elif kind < 0.75:
            urbanization, city = "", "SAN JUAN"
            box = rng.randrange(9020000, 9029999)
            line1, line2 = f"PO BOX {box}", ""
            zip_code = f"00902-{box % 10000:04d}"
        else:  # the owner receives mail at the property
            urbanization, city, zip_code = "", "SAN JUAN", "00901"
            line1 = f"{street.upper()} {number}"
            line2 = f"APT {rng.randrange(1, 6)}" if rng.random() < 0.4 else ""
        land = Decimal(rng.randrange(8_000, 120_000)) / 100
        floors = rng.randrange(1, 5) if use != "estacionamiento" else 1
        built = (land * floors * Decimal(rng.randrange(70, 100)) / 100).quantize(Decimal("0.01"))
        rooms = ""
        if use == "hotel":
            rooms = str(rng.randrange(18, 160))
        elif use == "hospederia":
            rooms = str(rng.randrange(4, 24))
        frontage = (Decimal(rng.randrange(500, 3500)) / 100).quantize(Decimal("0.01"))
        rows.append(
            [
                cadastral,
                owner,
                co_owner,
                urbanization,
                line1,
                line2,
                city,
                "PR",
                zip_code,
                physical,
                _money(rng, low, high),
                f"{land:.2f}",
                f"{built:.2f}",
                use,
                rooms,
                f"{frontage:.2f}",
                str(floors),
            ]
        )
    return rows


def roll_csv(count: int = 500, *, seed: int = 2026, bom: bool = True) -> bytes:
    """The roll as a CSV file (UTF-8, with the byte-order mark a spreadsheet writes)."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(HEADERS)
    writer.writerows(roll_rows(count, seed=seed))
    text = buffer.getvalue()
    return ("\ufeff" + text if bom else text).encode("utf-8")
