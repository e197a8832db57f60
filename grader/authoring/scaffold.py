"""`drill new ID --topic T`: a new drill's files, written where the author's drills
live (the first DRILL_PATH folder), and the lines of them still left to fill in.

The scaffold is a small drill that works (centre each row of a (B, N) tensor),
for the author to rewrite into theirs, with one thing left undone: its trap is a
stub. The stub's marker comment, `drill new: FILL IN: ...`, says what to write;
`drill validate` lists every marked line (`left_to_fill`) before it grades
anything, and is green once the stub is written as the marker says. Torch-free:
nothing here grades.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from grader.spec.names import oracle_file
from grader.spec.records import ID_RE, TOPICS, Spec
from grader.spec.userfile import REFERENCE_LIMIT, SOLUTION_LIMIT, SPEC_LIMIT, UnreadableFile, read_text

MARKER = "drill new: FILL IN:"
MAX_ID = 60  # characters: the id names files and appears in every listing


class ScaffoldError(Exception):
    """Why no drill was scaffolded (nothing was written, or what was written was removed)."""


@dataclass(frozen=True)
class Scaffold:
    spec: Path
    reference: Path
    ok: Path
    slip: Path

    @property
    def files(self) -> tuple[Path, ...]:
        return (self.spec, self.reference, self.ok, self.slip)


def check_new_id(drill_id: str, topic: str, known_ids: set[str]) -> None:
    """A ScaffoldError for an id or topic `drill new` must refuse."""
    if not ID_RE.fullmatch(drill_id) or len(drill_id) > MAX_ID:
        raise ScaffoldError(f"{drill_id[:80]!r} is not a drill id: lower-case letters and digits in words joined by "
                            f"'-', at most {MAX_ID} characters (e.g. my-drill)")
    if drill_id in known_ids:
        raise ScaffoldError(f"a drill {drill_id!r} already exists (`drill show {drill_id}`); choose another id")
    if topic not in TOPICS:
        import difflib

        close = difflib.get_close_matches(topic[:80], TOPICS, n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise ScaffoldError(f"unknown topic {topic[:80]!r}; {hint}topics: {', '.join(TOPICS)}")


def topic_folder(root: Path, topic: str) -> Path:
    """The folder of `root` for the topic: an existing `<topic>/` or `NN-<topic>/`, else a new `<topic>/`."""
    for child in sorted(root.iterdir()) if root.is_dir() else ():
        if child.is_dir() and re.fullmatch(rf"(\d+-)?{re.escape(topic)}", child.name):
            return child
    return root / topic


def plan(root: Path, drill_id: str, topic: str) -> Scaffold:
    """Where the drill's files go; a ScaffoldError when any of them (or its oracle file) exists already,
    or when a folder on the way is a symbolic link that leads outside ``root``."""
    folder = topic_folder(root, topic)
    solutions = folder / "solutions" / drill_id
    out = Scaffold(folder / f"{drill_id}.yaml", folder / f"{drill_id}.py", solutions / "ok_rowwise_sum.py",
                   solutions / "bad_slip_column_mean.py")
    inside(root, solutions)
    for path in (out.spec, out.reference, oracle_file(out.spec), solutions):
        if path.exists() or path.is_symlink():
            raise ScaffoldError(f"{path} exists already; `drill new` never overwrites a file: choose another id")
    return out


def inside(root: Path, folder: Path) -> None:
    """A ScaffoldError when a folder between ``root`` and ``folder`` that exists is not a folder, or is
    a symbolic link that leads outside ``root`` (a link that stays inside is followed)."""
    top = root.resolve()
    at = root
    for part in folder.relative_to(root).parts:
        at = at / part
        if not (at.exists() or at.is_symlink()):
            return  # made by `write`, as a real folder
        if at.is_symlink():
            target = at.resolve()
            if not target.is_relative_to(top):
                raise ScaffoldError(f"{at} is a symbolic link to {target}, outside {root}; `drill new` writes "
                                    f"only inside the first DRILL_PATH folder (nothing was written)")
        if not at.is_dir():
            raise ScaffoldError(f"{at} is in the way: not a folder (nothing was written)")


def write(scaffold: Scaffold, drill_id: str, topic: str, root: Path) -> None:
    """Write the four files, all or nothing: the folders they need are made, each checked to lie
    inside ``root`` as it is made; when any step fails, the files and folders made so far are removed
    and the error is raised again (an OSError, or a ScaffoldError for a link that appeared meanwhile)."""
    fn = _function_name(drill_id)
    texts = {scaffold.spec: SPEC, scaffold.reference: REFERENCE, scaffold.ok: OK, scaffold.slip: SLIP}
    folders: list[Path] = []
    files: list[Path] = []
    try:
        for path, template in texts.items():
            _make_folders(root, path.parent, folders)
            # O_EXCL: never overwrite, even if a file appeared meanwhile; O_NOFOLLOW: never through a link;
            # 0o666 less the umask, as open(path, "x") made them
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
            files.append(path)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(template.format(id=drill_id, topic=topic, fn=fn, marker=MARKER))
    except BaseException:
        _remove(files, folders)
        raise


def _make_folders(root: Path, folder: Path, made: list[Path]) -> None:
    """Make the missing folders from ``root`` down to ``folder``, appending each one made to ``made``."""
    inside(root, folder)
    at = root
    for part in folder.relative_to(root).parts:
        at = at / part
        if not at.is_dir():
            os.mkdir(at)
            made.append(at)
    inside(root, folder)  # nothing swapped for a link while the folders were made


def _remove(files: list[Path], folders: list[Path]) -> None:
    """Undo a write that failed half-way: the files it made, then the folders it made, newest first."""
    for path in reversed(files):
        try:
            path.unlink()
        except OSError:
            pass
    for folder in reversed(folders):
        try:
            folder.rmdir()
        except OSError:
            pass


def _function_name(drill_id: str) -> str:
    name = drill_id.replace("-", "_")
    return name if name[0].isalpha() else f"drill_{name}"


def left_to_fill(spec: Spec) -> list[str]:
    """`file:line: (to fill in): what to write` for every line of the drill's files still marked
    by the scaffold: the spec, the reference, its oracle file and its sample solutions."""
    files = [(spec.path, SPEC_LIMIT), (spec.reference_path, REFERENCE_LIMIT), (oracle_file(spec.path), REFERENCE_LIMIT)]
    solutions = spec.path.parent / "solutions" / spec.id
    if solutions.is_dir():
        files += [(p, SOLUTION_LIMIT) for p in sorted(solutions.glob("*.py"))]
    out = []
    for path, limit in files:
        if not path.is_file():
            continue
        try:
            lines = read_text(path, limit).splitlines()
        except UnreadableFile:
            continue  # the checks that read it say why
        where = ""
        for number, line in enumerate(lines, 1):
            match = re.match(r"\s*(?:async\s+)?def\s+(\w+)", line)
            if match:
                where = f"{match.group(1)}(): "
            if MARKER in line:
                what = line.split(MARKER, 1)[1].strip()
                out.append(f"{path}:{number}: (to fill in): {where}{what}")
    return out


# ------------------------------------------------------------------ the files

SPEC = """\
# A new drill, scaffolded by `drill new`: a small drill that works, to rewrite into yours.
# drills/README.md explains every key. `drill validate {id}.yaml` lists what is left to
# fill in, then proves the drill: the reference passes, the trap is caught and named,
# and the solutions in solutions/{id}/ do what their names say.
id: {id}
title: Centre each row
topic: {topic}
target_seconds: 120
prompt: |
  x is (B, N), one row of N values per sample. Return x with each row's own
  mean subtracted, so that every row of the result has mean 0. The result
  has x's shape and dtype.
dims:
  B: [2, 6]
  N: [3, 9]
example: {{B: 2, N: 4}}
scale: {{dims: {{B: 4096, N: 1024}}}}
functions:
  {fn}:
    args:
      x: {{shape: [B, N], gen: randn}}
    returns: {{shape: [B, N], dtype: float}}
    # oracle: reference (the default). To check the reference against an independent
    # implementation, write it in {id}.oracle.py beside this file and name it here.
cases:
  - {{name: fp32, dtype: float32}}
  - {{name: fp32-second-draw, dtype: float32}}
  - {{name: fp16, dtype: float16}}
  - {{name: batch-1, dims: {{B: 1}}, dtype: float32}}
invariants:
  - {{kind: finite, function: {fn}}}
traps:
  - id: mean-of-everything
    function: trap_mean_of_everything
    message: matches subtracting the mean of the whole tensor instead of each row's own mean
    why: |
      x.mean() reduces every axis to one number, so every row is shifted by the same amount;
      each row needs its own mean, x.mean(-1, keepdim=True), which is (B, 1).
quiz:
  - q: "x is (B, N). What is the shape of x.mean(-1, keepdim=True)?"
    a: "(B, 1)"
    why: keepdim leaves a 1 where the reduced axis was, so it broadcasts back over N
  - q: "x is (B, N). What is the shape of x - x.mean(-1, keepdim=True)?"
    a: "(B, N)"
    why: (B, 1) stretches over the N columns
hints:
  - "Which axis holds one sample's values?"
  - "x.mean(-1, keepdim=True) is (B, 1): one mean per row, and it broadcasts against (B, N)."
seed_trap: |
  x - x.mean() runs and has the right shape: only the values say that every row was moved by one number.
solution_notes: |
  Reduce with keepdim=True so the (B, 1) result lines up with the (B, N) input.
"""

REFERENCE = '''\
"""Reference and traps for {id} (scaffolded by `drill new`; drills/README.md)."""
import torch


def {fn}(x):
    # x (B, N) -> x.mean(-1, keepdim=True) is (B, 1): one mean per row, broadcast back over N
    return x - x.mean(-1, keepdim=True)  # (B, N)


# ------------------------------------------------------------------- traps


def trap_mean_of_everything(x):
    """The mistake, written like the reference: the mean of the whole tensor, not each row's."""
    # {marker} replace this comment and the raise below with:  return x - x.mean()
    raise NotImplementedError("the trap mean-of-everything is not written yet (drill new)")
'''

OK = '''\
def {fn}(x):
    return x - x.sum(dim=1, keepdim=True) / x.shape[1]
'''

SLIP = '''\
# trap: none
# Subtracts each column's mean (over the batch) instead of each row's.
def {fn}(x):
    return x - x.mean(0, keepdim=True)
'''
