"""The generators and oracles a spec may name, with their arguments, read from
the code that defines them, without importing it (that code imports torch), so
that `gen:` and `oracle:` are checked when a spec is parsed: a misspelt name is
a SpecError with its line, not a failure when the drill is first prepared.

Nothing here is a second list to keep equal by hand; every table is read with
`ast` from the files the grader runs:

- generators: the `GENERATORS` table of grader/cases/generators.py, each
  with the keyword options it takes after (ctx, shape, dtype);
- shared oracles: every public top-level function of grader/oracles/*.py
  (what several drills share, such as torch's SDPA);
- a drill's own oracles: every public top-level function of the oracle file
  beside its spec, `<id>.oracle.py` (drills/README.md), which a spec names
  as `oracle: <function>`.

An oracle name is looked up in the drill's own file first, then among the
shared ones; a name defined in both is a spec error (grader.spec.parse).
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

from grader.spec.userfile import python_text

GRADER = Path(__file__).resolve().parent.parent
GENERATORS_FILE = GRADER / "cases" / "generators.py"
SHARED_ORACLES = GRADER / "oracles"
ORACLE_SUFFIX = ".oracle.py"  # <id>.oracle.py beside <id>.yaml


def oracle_file(spec_path: Path) -> Path:
    """The drill's own oracle file beside its spec (it may not exist)."""
    return Path(spec_path).with_name(Path(spec_path).stem + ORACLE_SUFFIX)


def public_functions(tree: ast.Module) -> dict[str, tuple[str, ...]]:
    """name -> parameters of every top-level function whose name does not start with '_'."""
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            out[node.name] = _params(node)
    return out


def _params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    a = node.args
    return tuple(p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs))


def function_table(path: Path, table: str) -> dict[str, ast.FunctionDef]:
    """The module-level `table = {"name": function, ...}` of a module, each name with its
    function's definition, read with `ast` (the module itself is not imported)."""
    tree = ast.parse(python_text(path.read_text(encoding="utf-8")), filename=str(path))
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else (
            node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None)
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and target.id == table and isinstance(value, ast.Dict):
            out = {}
            for key, fn in zip(value.keys, value.values):
                if not (isinstance(key, ast.Constant) and isinstance(key.value, str)
                        and isinstance(fn, ast.Name) and fn.id in defs):
                    raise RuntimeError(f"{path}:{value.lineno}: {table} must map names to functions of the module")
                out[key.value] = defs[fn.id]
            return out
    raise RuntimeError(f"{path}: no {table} = {{...}} table at module level")


@functools.lru_cache(maxsize=None)
def generators() -> dict[str, tuple[str, ...]]:
    """name -> the keyword options it takes after (ctx, shape, dtype), from `GENERATORS` in generators.py."""
    return {name: _params(fn)[3:] for name, fn in function_table(GENERATORS_FILE, "GENERATORS").items()}


@functools.lru_cache(maxsize=None)
def shared_oracles() -> dict[str, tuple[str, ...]]:
    """name -> parameters of every oracle in grader/oracles/ (public top-level functions)."""
    out: dict[str, tuple[str, ...]] = {}
    for path in sorted(SHARED_ORACLES.glob("*.py")):
        if path.name != "__init__.py":
            out.update(public_functions(ast.parse(python_text(path.read_text(encoding="utf-8")), filename=str(path))))
    return out


def shared_oracle_module(name: str) -> str | None:
    """The module of grader/oracles/ that defines the shared oracle `name` (None: no such oracle)."""
    for path in sorted(SHARED_ORACLES.glob("*.py")):
        if path.name != "__init__.py":
            tree = ast.parse(python_text(path.read_text(encoding="utf-8")), filename=str(path))
            if name in public_functions(tree):
                return f"grader.oracles.{path.stem}"
    return None


def unknown(kind: str, name: str, table: dict[str, tuple[str, ...]] | list[str]) -> str:
    """The problem for a name the table lacks: the closest name, and every name there is."""
    import difflib

    close = difflib.get_close_matches(name[:100], sorted(table), n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    return f"unknown {kind} {name[:100]!r}; {hint}known: {', '.join(sorted(table))}, or py:name"
