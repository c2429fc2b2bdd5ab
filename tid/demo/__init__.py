"""Demo data, and the records the tests and benchmarks build from the same code.

- ``load`` — ``tid demo``: the users of every role and each area's demo, in order;
- ``petitions`` — the clerk's petitions; ``association`` — Viejo San Juan's ordinance and roll
  file; ``account`` — Condado's special account; ``notices`` — Condado's certified mail;
- ``roll`` — the deterministic roll file generator (demo, tests, benchmarks);
- ``large_district`` — ``tid demo --large``: a district at a real roll's size, in bulk;
- ``records`` — petitions with their ordinance, roll imports and billing runs made directly.
"""

from tid.demo.account import ACCOUNT_DISTRICT, ACCOUNT_USER, demo_deposits_path
from tid.demo.association import demo_roll_path
from tid.demo.base import DEMO_DISTRICT, DEMO_PASSWORD
from tid.demo.load import load_demo, turn_off_two_factor
from tid.demo.notices import portal_sample

__all__ = [
    "ACCOUNT_DISTRICT",
    "ACCOUNT_USER",
    "DEMO_DISTRICT",
    "DEMO_PASSWORD",
    "demo_deposits_path",
    "demo_roll_path",
    "load_demo",
    "portal_sample",
    "turn_off_two_factor",
]
