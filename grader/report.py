"""What a grading run says: per-call results and the run's verdict (CLI.md)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Most severe first (CLI.md): the run's verdict is its most severe case verdict.
SEVERITY = ("internal", "banned", "missing", "memory", "timeout", "output", "error", "wrong", "pass")
VERDICTS = frozenset(SEVERITY)


def worst(verdicts: list[str]) -> str:
    if not verdicts:
        return "internal"
    return min(verdicts, key=SEVERITY.index)


@dataclass
class TrapMatch:
    id: str
    message: str
    why: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "message": self.message}


@dataclass
class CaseResult:
    name: str
    function: str
    verdict: str
    message: str = ""
    dims: dict[str, int] = field(default_factory=dict)
    expected_shape: list[int] | None = None
    got_shape: list[int] | None = None
    dtype: str = ""
    trap: str | None = None
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "function": self.function,
            "verdict": self.verdict,
            "message": self.message,
            "dims": dict(self.dims),
            "expected_shape": self.expected_shape,
            "got_shape": self.got_shape,
        }
        if self.dtype:
            out["dtype"] = self.dtype
        if self.trap:
            out["trap"] = self.trap
        if self.line is not None:
            out["line"] = self.line
        return out


@dataclass
class Report:
    drill: str
    verdict: str
    cases: list[CaseResult]
    seconds: float = 0.0
    trap: TrapMatch | None = None
    seed: int | None = None
    file: str | None = None
    message: str = ""  # a run-level message (syntax error, missing function, ...)
    output: str = ""  # the start of what the solution printed
    notes: list[str] = field(default_factory=list)
    scale: dict[str, Any] | None = None  # memory at scale (grader.scale): sizes, per-function peaks, ratio, text

    @property
    def passed(self) -> int:
        return sum(1 for c in self.cases if c.verdict == "pass")

    @property
    def total(self) -> int:
        return len(self.cases)

    @property
    def first_failure(self) -> CaseResult | None:
        bad = [c for c in self.cases if c.verdict != "pass"]
        if not bad:
            return None
        return min(bad, key=lambda c: SEVERITY.index(c.verdict))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.file is not None:
            out["file"] = self.file
        out.update({
            "drill": self.drill,
            "verdict": self.verdict,
            "passed": self.passed,
            "total": self.total,
            "seconds": round(self.seconds, 3),
            "cases": [c.to_dict() for c in self.cases],
            "trap": self.trap.to_dict() if self.trap else None,
            "seed": self.seed,
        })
        if self.message:
            out["message"] = self.message
        if self.notes:
            out["notes"] = list(self.notes)
        if self.scale is not None:
            out["scale"] = self.scale
        return out
