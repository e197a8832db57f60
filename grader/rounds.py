"""Debug rounds: a correct solution with one of the drill's traps planted in it.

A drill's rounds live beside its spec, in `<id>.rounds.yaml` (drills/README.md,
"Debug rounds"): one or two correct `bases` (full code, written the way a
colleague would) and a list of `rounds`, each naming a trap, a base and the
lines to plant::

    drill: my-attention
    bases:
      einsum: |
        import math
        ...
    rounds:
      - trap: scale-by-d
        base: einsum
        plant:
          - line: "s = torch.einsum('bhtd,bhsd->bhts', q, k) / math.sqrt(dh)"
            bug: "s = torch.einsum('bhtd,bhsd->bhts', q, k) / math.sqrt(d)"

A plant's `line` is one line of the base as written there, leading and trailing
spaces aside; it must occur exactly once. Its `bug` takes that line's place,
with the line's indentation (several lines with `\\n`; "" deletes the line).
`buggy()` builds the code the person is handed and says where the bug is.
Everything here is torch-free: `drill debug` opens a round without the grader.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from grader.errors import DrillError
from grader.spec import safe_yaml
from grader.spec.userfile import SPEC_LIMIT, UnreadableFile, read_text

SUFFIX = ".rounds.yaml"


class RoundsError(DrillError):
    """A rounds file that cannot be read or does not hold together: its problems, one a line."""


@dataclass(frozen=True)
class Plant:
    line: str  # the correct line, stripped
    bug: str  # what takes its place ("" deletes it), without the indentation


@dataclass(frozen=True)
class Round:
    trap: str
    base: str
    plant: tuple[Plant, ...]


@dataclass(frozen=True)
class Planted:
    """One round made concrete: the code handed over, and where its bug sits."""

    drill: str
    trap: str
    base: str
    code: str  # the buggy code
    fixed: str  # the base it was made from (a correct solution)
    lines: tuple[int, ...]  # 1-based lines of `code` that hold the bug (a deleted line: where it was)
    correct: tuple[str, ...]  # the correct lines the bug replaced, stripped, in order
    removed: tuple[int, ...] = ()  # of `lines`, those after which a correct line was deleted
    spans: tuple[int, ...] = ()  # how many lines of `code` each plant's bug takes (0: a deletion)
    indents: tuple[str, ...] = ()  # the indentation of each correct line

    def undone(self) -> str:
        """The code with every planted bug taken back out: the base, when the plants are right."""
        rows = self.code.splitlines()
        for line, span, indent, correct in reversed(list(zip(self.lines, self.spans, self.indents, self.correct))):
            at = line if span == 0 else line - 1  # a deletion sits after `line`
            rows[at:at + span] = [indent + correct]
        return "\n".join(rows) + "\n"

    def bug_lines(self) -> list[str]:
        """The planted lines as they read in the buggy code ("" for a deleted line)."""
        rows = self.code.splitlines()
        return ["" if i in self.removed else rows[i - 1].strip() if 0 < i <= len(rows) else "" for i in self.lines]


@dataclass(frozen=True)
class Rounds:
    drill: str
    path: Path
    bases: dict[str, str]
    rounds: tuple[Round, ...]

    def traps(self) -> list[str]:
        return [r.trap for r in self.rounds]

    def for_trap(self, trap: str) -> list[Round]:
        return [r for r in self.rounds if r.trap == trap]

    def pick(self, trap: str | None = None, seed: int | None = None) -> Round:
        """The round for `trap` (the first of several), or one chosen by `seed` (random when None)."""
        if trap is not None:
            found = self.for_trap(trap)
            if not found:
                raise RoundsError(f"{self.drill} has no debug round for the trap {trap!r}; "
                                  f"its rounds: {', '.join(dict.fromkeys(self.traps()))}", exit_code=2)
            return found[0]
        return random.Random(seed).choice(self.rounds)


def rounds_path(spec_path: Path, drill_id: str) -> Path:
    """Where a drill's rounds file lives: beside its spec."""
    return Path(spec_path).with_name(drill_id + SUFFIX)


def load(spec_path: Path, drill_id: str) -> Rounds | None:
    """The drill's rounds, None when it has no rounds file. RoundsError for a broken one."""
    path = rounds_path(spec_path, drill_id)
    if not path.exists():
        return None
    try:
        text = read_text(path, SPEC_LIMIT)
    except UnreadableFile as exc:
        raise RoundsError(f"{path}: {exc.reason}") from None
    try:
        data = safe_yaml.load(text)
    except yaml.YAMLError as exc:
        line, problem = safe_yaml.problem_line(exc, text)
        raise RoundsError(f"{path}:{line}: {problem}") from None
    return parse(data, path, drill_id)


def parse(data: Any, path: Path, drill_id: str) -> Rounds:
    """Rounds from loaded YAML; every problem is collected and raised at once."""
    problems: list[str] = []
    at = lambda field, msg: problems.append(f"{path}: {field}: {msg}")  # noqa: E731
    if not isinstance(data, dict):
        raise RoundsError(f"{path}: a rounds file is a mapping with drill, bases and rounds")
    for key in sorted(set(data) - {"drill", "bases", "rounds"}):
        at(str(key), "unknown key (the keys are drill, bases, rounds)")
    if data.get("drill") != drill_id:
        at("drill", f"must be {drill_id!r}, the id of the spec beside it")
    bases = data.get("bases")
    if not isinstance(bases, dict) or not bases or not all(isinstance(k, str) and isinstance(v, str)
                                                           for k, v in bases.items()):
        at("bases", "a mapping of names to full solution code")
        bases = {}
    raw = data.get("rounds")
    if not isinstance(raw, list) or not raw:
        at("rounds", "a list of {trap, base, plant}")
        raw = []
    rounds = []
    for i, item in enumerate(raw):
        where = f"rounds[{i}]"
        rnd = _round(item, where, bases, at)
        if rnd is not None:
            rounds.append(rnd)
    if problems:
        raise RoundsError(problems)
    return Rounds(drill_id, path, dict(bases), tuple(rounds))


def _round(item: Any, where: str, bases: dict[str, str], at: Any) -> Round | None:
    if not isinstance(item, dict) or set(item) - {"trap", "base", "plant"}:
        at(where, "a round is {trap, base, plant}")
        return None
    trap, base, plant = item.get("trap"), item.get("base"), item.get("plant")
    ok = True
    if not isinstance(trap, str) or not trap:
        at(f"{where}.trap", "the id of one of the drill's traps")
        ok = False
    if base not in bases:
        at(f"{where}.base", f"{base!r} is not one of the bases ({', '.join(bases) or 'none'})")
        ok = False
    plants = []
    if not isinstance(plant, list) or not plant:
        at(f"{where}.plant", "a list of {line, bug}")
        return None
    for j, p in enumerate(plant):
        if not isinstance(p, dict) or set(p) != {"line", "bug"} or not all(isinstance(v, str) for v in p.values()):
            at(f"{where}.plant[{j}]", "each plant is {line: the correct line, bug: what replaces it}")
            ok = False
            continue
        plants.append(Plant(p["line"].strip(), p["bug"].strip("\n")))
    if not ok:
        return None
    rnd = Round(str(trap), str(base), tuple(plants))
    try:
        buggy(rnd, bases, "")
    except RoundsError as exc:
        for line in exc.lines:
            at(f"{where}.plant", line)
        return None
    return rnd


def buggy(rnd: Round, bases: dict[str, str], drill: str) -> Planted:
    """The base with the round's plants in place, and the lines that hold them."""
    rows = bases[rnd.base].splitlines()
    problems = []
    targets: list[tuple[int, Plant]] = []
    for want in rnd.plant:
        plant = want
        hits = [i for i, row in enumerate(rows) if row.strip() == plant.line]
        if len(hits) != 1:
            problems.append(f"the line {plant.line!r} occurs {len(hits)} times in the base {rnd.base!r}; "
                            "a plant names one line exactly")
        elif plant.bug.strip() == plant.line:
            problems.append(f"the bug for {plant.line!r} is the same line")
        else:
            targets.append((hits[0], plant))
    if problems:
        raise RoundsError(problems)
    out: list[str] = []
    lines: list[int] = []
    removed: list[int] = []
    spans: list[int] = []
    indents: list[str] = []
    correct: list[str] = []
    by_row = dict(targets)
    for i, row in enumerate(rows):
        found = by_row.get(i)
        if found is None:
            out.append(row)
            continue
        plant = found
        indent = row[: len(row) - len(row.lstrip())]
        new = [indent + b if b.strip() else b for b in plant.bug.split("\n")] if plant.bug.strip() else []
        lines.append(len(out) + 1 if new else max(1, len(out)))
        if not new:
            removed.append(lines[-1])
        spans.append(len(new))
        indents.append(indent)
        correct.append(plant.line)
        out.extend(new)
    return Planted(drill, rnd.trap, rnd.base, "\n".join(out) + "\n", bases[rnd.base], tuple(lines), tuple(correct),
                   tuple(removed), tuple(spans), tuple(indents))


def planted(rounds: Rounds, rnd: Round) -> Planted:
    return buggy(rnd, rounds.bases, rounds.drill)


def has_rounds(spec_path: Path, drill_id: str) -> bool:
    """Whether the drill has a rounds file (read only when a round is served)."""
    return rounds_path(spec_path, drill_id).is_file()


def serve(spec_path: Path, drill_id: str, trap: str | None = None, seed: int | None = None) -> Planted:
    """One round of the drill, planted: for `trap` when given, else chosen by `seed` (random
    when None). RoundsError (exit 2) when the drill has none."""
    found = load(spec_path, drill_id)
    if found is None:
        raise RoundsError(f"{drill_id} has no debug rounds (a {drill_id}{SUFFIX} beside its spec; "
                          "drills/README.md, 'Debug rounds')", exit_code=2)
    return planted(found, found.pick(trap, seed))
