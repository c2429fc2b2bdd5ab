"""A table's row links built once a page: the same URLs as ``url_for`` row by row."""

from __future__ import annotations

import pytest
from flask import Flask, url_for

from tid.web.util import svg_attributes, url_pattern


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_a_pattern_gives_url_for_s_url_for_every_id(app: Flask) -> None:
    cases = [
        ("account.property_liens", "property_id", {"district_id": 7}),
        ("roll.property_detail", "property_id", {"district_id": 12}),
        ("account.reverse", "entry_id", {"district_id": 3}),
        ("main.audit_trail", "entity_id", {"entity_type": "journal_entry"}),
    ]
    with app.test_request_context("/", base_url="https://tid.example.pr/sub"):
        for endpoint, key, values in cases:
            pattern = url_pattern(endpoint, key, **values)
            for n in (1, 7, 12, 3, 987_654, 10**12):
                assert pattern(n) == url_for(endpoint, **{key: n}, **values)


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_a_key_outside_the_route_goes_in_the_query_as_url_for_puts_it(app: Flask) -> None:
    with app.test_request_context("/"):
        pattern = url_pattern("account.journal", "page", district_id=5)
        assert pattern(3) == url_for("account.journal", page=3, district_id=5)
        assert pattern(3).endswith("?page=3")


def test_a_charts_attributes_are_written_as_the_template_wrote_them_one_by_one() -> None:
    """``svg_attrs`` gives what the template's loop over a shape's attributes gave."""
    from jinja2 import Environment

    env = Environment(autoescape=True)
    env.filters["svg_attrs"] = svg_attributes
    loop = env.from_string('<r{% for k, v in a.items() %} {{ k }}="{{ v }}"{% endfor %}>')
    once = env.from_string("<r{{ a|svg_attrs }}>")
    hostile = {"x": 1, "y": 2.5, "class": "a\"<b>&'", "fill": "#0072B2", "data-n": None}
    for attrs in ({}, {"x": 0}, hostile):
        assert once.render(a=attrs) == loop.render(a=attrs)
