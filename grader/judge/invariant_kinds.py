"""Names and meanings of the built-in invariant kinds, torch-free, for the parser.

Read with `ast` from the `CHECKS` table of grader/judge/invariants.py (which imports
torch), each kind's meaning the first line of its check's docstring: the table the
judge runs is the only list. A spec may also name its own check from its reference
file as `py:name`.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

INVARIANTS_FILE = Path(__file__).resolve().with_name("invariants.py")


@functools.lru_cache(maxsize=None)
def kinds() -> dict[str, str]:
    """kind -> what it checks."""
    from grader.spec.names import function_table

    out = {}
    for kind, fn in function_table(INVARIANTS_FILE, "CHECKS").items():
        doc = (ast.get_docstring(fn) or "").strip()
        out[kind] = doc.splitlines()[0] if doc else ""
    return out
