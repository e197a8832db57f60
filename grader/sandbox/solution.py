"""Loading a person's source as a module, and describing what it raised.

Written once for both children that run a solution: the grading child
(grader.sandbox.child) and the `:try` tracer (grader.trace). The source's
lines go into linecache so a traceback can quote them; an exception is
reduced to the person's own lines, with no grader frames.
"""
from __future__ import annotations

import sys
import traceback
from types import ModuleType
from typing import Any

from grader.report import class_name, safe_message


def describe_exception(exc: BaseException, filename: str) -> dict[str, Any]:
    """Type, message and the person's own line, with no grader frames, whatever the
    exception's __str__, name or attributes do."""
    out: dict[str, Any] = {"type": class_name(type(exc)), "message": safe_message(exc), "line": None, "text": "",
                           "trace": []}
    try:
        out["mro"] = [class_name(c) for c in type.__dict__["__mro__"].__get__(type(exc))][:8]
    except BaseException:  # noqa: BLE001, S110 - the type and message stand alone
        pass
    try:
        tb = traceback.extract_tb(exc.__traceback__)
        mine = [f for f in tb if f.filename == filename]
        frame = mine[-1] if mine else None
        if isinstance(exc, SyntaxError) and exc.filename == filename:
            line, text = exc.lineno, str(exc.text or "").strip()
        else:
            line, text = (frame.lineno, (frame.line or "").strip()) if frame else (None, "")
        out["line"] = line if isinstance(line, int) and line >= 0 else None
        out["text"] = text[:200]
        out["trace"] = [f"line {f.lineno}: {(f.line or '').strip()[:120]}" for f in mine][-5:]
    except BaseException:  # noqa: BLE001, S110 - an odd traceback or attribute: no line to quote
        pass
    return out


def new_module(source: str, filename: str, register: bool = False) -> ModuleType:
    """An empty module named "solution" for `source` (in sys.modules when `register`),
    with the source's lines in linecache so a traceback can quote them."""
    import linecache

    module = type(sys)("solution")
    module.__file__ = filename
    if register:
        sys.modules["solution"] = module
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return module


def run_source(module: ModuleType, source: str, filename: str) -> None:
    """Compile and run `source` in `module`'s namespace: this is the sandbox child."""
    code = compile(source.removeprefix("\ufeff"), filename, "exec")  # a BOM, as Python reads a file
    exec(code, module.__dict__)  # noqa: S102 - only ever in a sandbox child
