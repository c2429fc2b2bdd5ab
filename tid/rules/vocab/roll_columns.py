"""The columns of the property roll (``property_year``), in the order the roll page shows them.

Each column has its label, its type (``TEXT`` within ``limit`` characters, ``MONEY`` in cents,
``QUANTITY`` with up to four decimals, ``COUNT`` a whole number), whether every row needs it,
the header names a roll file may give it in Spanish or in English (normalized: lower case, no
accents, words joined by ``_``) and, for the columns a formula may use, the name the formula's
explanation gives it (``variable``) and the name a formula written in Spanish gives it
(``formula_name_es``, one of its Spanish headers). The roll import, the property page and the
formula's variables read them here; the model ``PropertyYear`` has a database column for each column
``on_year``.
"""

from __future__ import annotations

from dataclasses import dataclass

from tid.rules.messages import N_
from tid.rules.vocab.terms import Term, Vocabulary

TEXT = "text"
MONEY = "money"
QUANTITY = "quantity"
COUNT = "count"


@dataclass(frozen=True)
class RollColumn(Term):
    kind: str
    headers: tuple[str, ...]
    limit: int = 0  # the longest text (TEXT only)
    required: bool = False
    variable: str | None = None  # a msgid: the column as a formula's explanation names it
    # The column's name in a formula written in Spanish (one of its Spanish headers): a
    # formula may name it so or by its code; both read the same column.
    formula_name_es: str | None = None
    # A column of ``property_year`` (the cadastral number is the property's; a co-owner is
    # joined to the owners).
    on_year: bool = True

    @property
    def numeric(self) -> bool:
        return self.kind != TEXT


def _headers(names: str) -> tuple[str, ...]:
    return tuple(names.split())


ROLL_COLUMNS: Vocabulary[RollColumn] = Vocabulary(
    "roll columns",
    (
        RollColumn(
            "cadastral_number",
            N_("Cadastral number"),
            TEXT,
            _headers(
                "cadastral_number cadastral_no cadastral catastro numero_de_catastro "
                "numero_catastro num_catastro no_catastro catastro_num parcel parcel_number "
                "parcel_id finca"
            ),
            limit=20,
            required=True,
            on_year=False,
        ),
        RollColumn(
            "owner_names",
            N_("Owner"),
            TEXT,
            _headers(
                "owner owners owner_name owner_names owner_1 propietario propietarios "
                "nombre_propietario nombre_del_propietario propietario_1 dueno duenos titular"
            ),
            limit=500,
            required=True,
        ),
        RollColumn(
            "owner_names_2",
            N_("Co-owner"),
            TEXT,
            _headers("owner_2 co_owner copropietario propietario_2 segundo_propietario"),
            limit=240,
            on_year=False,
        ),
        RollColumn(
            "mailing_urbanization",
            N_("Urbanization"),
            TEXT,
            _headers(
                "urbanization urbanizacion urb mailing_urbanization postal_urbanization "
                "urbanizacion_postal"
            ),
            limit=120,
        ),
        RollColumn(
            "mailing_line1",
            N_("Mailing address"),
            TEXT,
            _headers(
                "mailing_address mailing_address_1 mailing_line1 mailing_line_1 address_1 "
                "address_line_1 direccion_postal direccion_postal_1 direccion_1 linea_1 "
                "direccion_de_correo"
            ),
            limit=200,
            required=True,
        ),
        RollColumn(
            "mailing_line2",
            N_("Second address line"),
            TEXT,
            _headers(
                "mailing_address_2 mailing_line2 mailing_line_2 address_2 address_line_2 "
                "direccion_postal_2 direccion_2 linea_2"
            ),
            limit=200,
        ),
        RollColumn(
            "mailing_city",
            N_("City"),
            TEXT,
            _headers("city mailing_city ciudad pueblo municipio_postal"),
            limit=80,
        ),
        RollColumn(
            "mailing_state", N_("State"), TEXT, _headers("state mailing_state estado"), limit=2
        ),
        RollColumn(
            "mailing_zip",
            N_("ZIP code"),
            TEXT,
            _headers("zip zip_code zipcode postal_code mailing_zip codigo_postal zona_postal"),
            limit=10,
            required=True,
        ),
        RollColumn(
            "physical_address",
            N_("Physical address"),
            TEXT,
            _headers(
                "physical_address property_address location direccion_fisica ubicacion "
                "direccion_de_la_propiedad localizacion"
            ),
            limit=300,
        ),
        RollColumn(
            "use_class",
            N_("Use"),
            TEXT,
            _headers("use_class use class land_use uso clase_de_uso clasificacion tipo_de_uso"),
            limit=40,
            variable=N_("use class"),
            formula_name_es="clase_de_uso",
        ),
        RollColumn(
            "assessed_value",
            N_("Assessed value"),
            MONEY,
            _headers(
                "assessed_value assessment value valor_tasado tasacion valor_de_tasacion "
                "valor_tasacion valor_contributivo valor_catastral"
            ),
            required=True,
            variable=N_("assessed value"),
            formula_name_es="valor_tasado",
        ),
        RollColumn(
            "land_area",
            N_("Land area"),
            QUANTITY,
            _headers("land_area lot_area area_terreno area_del_terreno cabida solar_m2 area_solar"),
            variable=N_("land area"),
            formula_name_es="area_terreno",
        ),
        RollColumn(
            "built_area",
            N_("Built area"),
            QUANTITY,
            _headers(
                "built_area building_area floor_area area_construida area_de_construccion "
                "area_construccion"
            ),
            variable=N_("built area"),
            formula_name_es="area_construida",
        ),
        RollColumn(
            "rooms",
            N_("Rooms"),
            COUNT,
            _headers("rooms room_count habitaciones cuartos numero_de_habitaciones"),
            variable=N_("rooms"),
            formula_name_es="habitaciones",
        ),
        RollColumn(
            "frontage",
            N_("Frontage"),
            QUANTITY,
            _headers("frontage frente frente_lineal linear_frontage metros_de_frente"),
            variable=N_("frontage"),
            formula_name_es="frente",
        ),
    ),
)


def text_columns() -> tuple[str, ...]:
    return ROLL_COLUMNS.derived("text", lambda: ROLL_COLUMNS.codes(lambda c: c.kind == TEXT))


def numeric_columns() -> tuple[str, ...]:
    return ROLL_COLUMNS.derived("numeric", lambda: ROLL_COLUMNS.codes(lambda c: c.numeric))


def formula_columns() -> tuple[str, ...]:
    """The columns a formula may use by name (its standard attributes)."""
    return ROLL_COLUMNS.codes(lambda c: c.variable is not None)


def count_columns() -> tuple[str, ...]:
    return ROLL_COLUMNS.derived("count", lambda: ROLL_COLUMNS.codes(lambda c: c.kind == COUNT))


def year_columns() -> tuple[str, ...]:
    """The columns of ``property_year`` the roll file fills."""
    return ROLL_COLUMNS.derived("on_year", lambda: ROLL_COLUMNS.codes(lambda c: c.on_year))


def text_limits() -> dict[str, int]:
    return ROLL_COLUMNS.derived(
        "limits", lambda: {c.code: c.limit for c in ROLL_COLUMNS if c.kind == TEXT}
    )


def required_columns() -> frozenset[str]:
    return frozenset(ROLL_COLUMNS.codes(lambda c: c.required))


def header_aliases() -> dict[str, str]:
    """Normalized header → column of the roll."""
    return {name: column.code for column in ROLL_COLUMNS for name in column.headers}
