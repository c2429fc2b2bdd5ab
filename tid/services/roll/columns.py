"""The roll's columns: the text and numeric fields, what users call each (``COLUMN_LABELS``),
the header aliases in Spanish and English (``HEADER_ALIASES``), their limits, and the shapes
of a cadastral number, a ZIP code and a number as a roll writes it.
"""

from __future__ import annotations

import re
from decimal import Decimal

from tid.rules.errors import N_
from tid.rules.messages import Message
from tid.services.csvfile import ENCODING_LABELS

# A CRIM cadastral number: NNN-NNN-NNN-NN, and for a unit of a condominium a -NNN suffix.
CADASTRAL = re.compile(r"^\d{3}-\d{3}-\d{3}-\d{2}(?:-\d{3})?$", re.ASCII)
ZIP = re.compile(r"^\d{5}(?:-\d{4})?$", re.ASCII)
ATTRIBUTE_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,39}$")
# A cell starting with these is run as a formula by spreadsheets (CSV injection); a tab or a
# carriage return at the start is the same trick hidden.
INJECTION_START = ("=", "+", "-", "@", "\t", "\r")
QUANTITY_PLACES = Decimal("0.0001")
# A number as a roll writes it: "1234.50", "1,234.50", "$1,234.50", "-5" (refused later).
NUMBER = re.compile(r"^\$?(-)?\$?((?:\d{1,3}(?:,\d{3})+)|\d+)(?:\.(\d+))?$", re.ASCII)

# The roll's columns; the numeric ones are also the formula's attribute names.
TEXT_FIELDS = (
    "cadastral_number",
    "owner_names",
    "owner_names_2",
    "mailing_urbanization",
    "mailing_line1",
    "mailing_line2",
    "mailing_city",
    "mailing_state",
    "mailing_zip",
    "physical_address",
    "use_class",
)
NUMERIC_FIELDS = ("assessed_value", "land_area", "built_area", "rooms", "frontage")
STANDARD_ATTRIBUTES = (
    "assessed_value",
    "land_area",
    "built_area",
    "use_class",
    "rooms",
    "frontage",
)
TEXT_LIMITS = {
    "cadastral_number": 20,
    "owner_names": 500,
    "owner_names_2": 240,
    "mailing_urbanization": 120,
    "mailing_line1": 200,
    "mailing_line2": 200,
    "mailing_city": 80,
    "mailing_state": 2,
    "mailing_zip": 10,
    "physical_address": 300,
    "use_class": 40,
}

# What users call each column of the roll (the preview, its findings) and each encoding.
COLUMN_LABELS = {
    "cadastral_number": N_("Cadastral number"),
    "owner_names": N_("Owner"),
    "owner_names_2": N_("Co-owner"),
    "mailing_urbanization": N_("Urbanization"),
    "mailing_line1": N_("Mailing address"),
    "mailing_line2": N_("Second address line"),
    "mailing_city": N_("City"),
    "mailing_state": N_("State"),
    "mailing_zip": N_("ZIP code"),
    "physical_address": N_("Physical address"),
    "use_class": N_("Use"),
    "assessed_value": N_("Assessed value"),
    "land_area": N_("Land area"),
    "built_area": N_("Built area"),
    "rooms": N_("Rooms"),
    "frontage": N_("Frontage"),
}


def column_label(target: str) -> str:
    """A column of the roll by its label; ``attribute:x`` as the formula attribute x."""
    if target in COLUMN_LABELS:
        return Message(COLUMN_LABELS[target])
    if target.startswith("attribute:"):
        return Message(
            "Attribute for the formula: %(name)s", name=target.removeprefix("attribute:")
        )
    return target


def encoding_label(encoding: str) -> str:
    return Message(ENCODING_LABELS[encoding]) if encoding in ENCODING_LABELS else encoding


# Normalized header (lower case, no accents, words joined by "_") -> column of the roll.
HEADER_ALIASES: dict[str, str] = {}
for _field, _names in {
    "cadastral_number": (
        "cadastral_number cadastral_no cadastral catastro numero_de_catastro numero_catastro "
        "num_catastro no_catastro catastro_num parcel parcel_number parcel_id finca"
    ),
    "owner_names": (
        "owner owners owner_name owner_names owner_1 propietario propietarios "
        "nombre_propietario nombre_del_propietario propietario_1 dueno duenos titular"
    ),
    "owner_names_2": "owner_2 co_owner copropietario propietario_2 segundo_propietario",
    "mailing_urbanization": (
        "urbanization urbanizacion urb mailing_urbanization postal_urbanization urbanizacion_postal"
    ),
    "mailing_line1": (
        "mailing_address mailing_address_1 mailing_line1 mailing_line_1 address_1 "
        "address_line_1 direccion_postal direccion_postal_1 direccion_1 linea_1 "
        "direccion_de_correo"
    ),
    "mailing_line2": (
        "mailing_address_2 mailing_line2 mailing_line_2 address_2 address_line_2 "
        "direccion_postal_2 direccion_2 linea_2"
    ),
    "mailing_city": "city mailing_city ciudad pueblo municipio_postal",
    "mailing_state": "state mailing_state estado",
    "mailing_zip": "zip zip_code zipcode postal_code mailing_zip codigo_postal zona_postal",
    "physical_address": (
        "physical_address property_address location direccion_fisica ubicacion "
        "direccion_de_la_propiedad localizacion"
    ),
    "assessed_value": (
        "assessed_value assessment value valor_tasado tasacion valor_de_tasacion "
        "valor_tasacion valor_contributivo valor_catastral"
    ),
    "land_area": "land_area lot_area area_terreno area_del_terreno cabida solar_m2 area_solar",
    "built_area": (
        "built_area building_area floor_area area_construida area_de_construccion area_construccion"
    ),
    "use_class": "use_class use class land_use uso clase_de_uso clasificacion tipo_de_uso",
    "rooms": "rooms room_count habitaciones cuartos numero_de_habitaciones",
    "frontage": "frontage frente frente_lineal linear_frontage metros_de_frente",
}.items():
    for _name in _names.split():
        HEADER_ALIASES[_name] = _field
