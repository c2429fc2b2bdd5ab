"""The district's year ahead (21 LPRA § 6653(6)): the budget by authorized purpose with the
administrative cap planned before it binds (:mod:`.planning`), the budget against the year's
actual spending and commitments (:mod:`.actuals`), and the carry-over of a closed year
(:mod:`.carry_over`), the yearly report's figures (:mod:`.report`) and what the pages show
(:mod:`.page_reads`)."""

from __future__ import annotations

from tid.services.budget import actuals, carry_over, planning

__all__ = ["actuals", "carry_over", "planning"]
