"""The catalogue: every drill spec under a list of roots, parsed, with the broken
ones set aside so that one bad file never hides the others.

The caller says where to look (`load_catalogue(roots)`; the trainer passes
`trainer.paths.drill_roots()`), so the grader never imports the trainer.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from grader.errors import UnknownDrill, unknown_drill_message

if TYPE_CHECKING:
    from grader.spec.records import Spec

__all__ = ["Catalogue", "UnknownDrill", "builtin_drill_root", "load_catalogue", "spec_files",
           "unknown_drill_message"]
# The parser is imported when a catalogue is loaded, not with this module: `drill list`
# reads the cached catalogue and should not pay for the parser and its YAML reader.


def builtin_drill_root() -> Path:
    import drills

    return Path(drills.__file__).resolve().parent


def extra_drill_paths() -> list[Path]:
    """Folders named in DRILL_PATH (os.pathsep separated), searched after the built-in drills.

    The one reader of DRILL_PATH: the trainer passes these roots in, and a grader
    process started on its own (`python -m grader.worker`) inherits the variable."""
    raw = os.environ.get("DRILL_PATH", "")
    return [Path(p).expanduser() for p in raw.split(os.pathsep) if p.strip()]


def default_roots() -> list[Path]:
    """Where drills live: the built-in drills, then the DRILL_PATH folders."""
    return [builtin_drill_root(), *extra_drill_paths()]


def spec_files(roots: list[Path] | None = None) -> list[Path]:
    """Every spec YAML under the roots (None: `default_roots()`). A file named with a second
    dot (`<id>.rounds.yaml`, grader.rounds) belongs to a spec beside it and is none itself."""
    if roots is None:
        roots = default_roots()
    files: list[Path] = []
    for root in roots:
        root = Path(root)
        if root.exists() and not root.is_dir():  # a spec file, or a FIFO/device parse_spec refuses by name
            files.append(root)
            continue
        files.extend(sorted(p for p in root.glob("*/*.yaml") if p.name.count(".") == 1))
        files.extend(sorted(p for p in root.glob("*.yaml") if p.name.count(".") == 1))
    unique: dict[Path, Path] = {}
    for path in files:  # each file once, where it is first named
        unique.setdefault(_same_file(path), path)
    return list(unique.values())


def _same_file(path: Path) -> Path:
    """What tells two names of one file apart from two files (a root named twice, a file and its folder)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: the name as given
        return path


def load_catalogue(roots: list[Path] | None = None, *, strict: bool = False) -> Catalogue:
    """Load every spec under the roots (None: `default_roots()`). Broken files are collected in `errors` and, grouped by file, in
    `broken` (or raised when strict); a broken file never stops the others from loading."""
    from grader.spec.parse import parse_spec
    from grader.spec.records import SpecError

    specs: dict[str, Spec] = {}
    errors: list[str] = []
    broken: dict[str, list[str]] = {}
    for path in spec_files(roots):
        try:
            spec = parse_spec(path)
        except SpecError as exc:
            problems = exc.problems
        except Exception as exc:  # noqa: BLE001 - one hostile file must not break the catalogue
            problems = [f"{path}:0: (file): cannot be checked ({type(exc).__name__})"]
        else:
            if spec.id not in specs:
                specs[spec.id] = spec
                continue
            problems = [f"{path}:1: id: {spec.id!r} is already defined by {specs[spec.id].path}"]
        errors.extend(problems)
        broken[str(path)] = list(problems)
    if strict and errors:
        raise SpecError(errors)
    ordered = dict(sorted(specs.items(), key=lambda kv: (kv[1].number or 999, str(kv[1].path))))
    return Catalogue(ordered, errors, broken)


def _holds_python(folder: Path) -> bool:
    """Whether `folder` is or holds this interpreter's prefix, a sys.path entry or the grader package."""
    import sys

    needed = [Path(sys.prefix), Path(sys.base_prefix), Path(__file__).resolve().parent,
              *(Path(p) for p in sys.path if p)]
    for path in needed:
        try:
            path = path.resolve()
        except OSError:
            continue
        if path == folder or folder in path.parents:
            return True
    return False


@dataclass
class Catalogue:
    specs: dict[str, Spec]
    errors: list[str]
    broken: dict[str, list[str]] = field(default_factory=dict)  # file -> its problems

    def warnings(self) -> list[str]:
        """One line per broken spec file: its first problem, and how many more there are."""
        out = []
        for path, problems in self.broken.items():
            more = f" (and {len(problems) - 1} more; `drill validate {path}` lists them)" if len(problems) > 1 else ""
            out.append(f"skipped a broken spec: {problems[0]}{more}")
        return out

    def hidden(self) -> tuple[str, ...]:
        """What a sandbox child may not read (grader.sandbox.landlock): the built-in drills' folder and
        the folder of every spec here, where its reference, oracle, debug rounds and sample solutions
        lie; a folder that also holds this Python, its packages or the grader is never hidden whole,
        only the drill's own files in it."""
        out = {str(builtin_drill_root())}
        for spec in self.specs.values():
            folder = Path(spec.path).resolve().parent
            if _holds_python(folder):
                stem = Path(spec.path).name.split(".")[0]
                out.update(str(p) for p in folder.glob(f"{stem}.*"))
                out.update(str(p) for p in (Path(spec.reference_path), folder / "solutions" / spec.id))
            else:
                out.add(str(folder))
        return tuple(sorted(out))

    def get(self, drill_id: str) -> Spec:
        if drill_id not in self.specs:
            raise UnknownDrill(unknown_drill_message(drill_id, self.specs))
        return self.specs[drill_id]


