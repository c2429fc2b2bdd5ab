"""The trace a result carries: one explained step each, with its citation."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One explained step of a computation: ``{step, value, citation}``, and ``parameter``,
    the dated parameter of tid/rules/params.py the step used, if any."""

    step: str
    value: str
    citation: str
    parameter: str | None = None

    def as_json(self) -> dict[str, str]:
        doc = {"step": self.step, "value": self.value, "citation": self.citation}
        if self.parameter:
            doc["parameter"] = self.parameter
        return doc
