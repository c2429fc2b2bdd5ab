"""`make test` runs with ``--dist loadgroup``: the tests of one ``xdist_group`` run on one
worker (each browser module with its served demo, the demo's tests of each backend with the
one load of it). pytest-xdist names a test's group in its id; a pytest that ignored that
would silently spread every group over the workers."""

from __future__ import annotations

import pytest


@pytest.mark.xdist_group("the-groups-probe")
def test_a_tests_group_is_in_the_id_the_scheduler_reads(request: pytest.FixtureRequest) -> None:
    item = request.node
    if getattr(request.config.option, "loadgroup", False):  # `make test`: the id names it
        assert item.nodeid.endswith("@the-groups-probe"), item.nodeid
        return
    before = item.nodeid  # alone: the id takes the suffix the way pytest-xdist writes it
    item._nodeid = f"{before}@the-groups-probe"
    try:
        assert item.nodeid == f"{before}@the-groups-probe"
    finally:
        item._nodeid = before
