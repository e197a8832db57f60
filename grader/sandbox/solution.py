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


def describe_exception(exc: BaseException, filename: str) -> dict[str, Any]:
    """Type, message and the person's own line, with no grader frames."""
    tb = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in tb if f.filename == filename]
    frame = mine[-1] if mine else None
    if isinstance(exc, SyntaxError) and exc.filename == filename:
        line, text = exc.lineno, (exc.text or "").strip()
    else:
        line, text = (frame.lineno, (frame.line or "").strip()) if frame else (None, "")
    message = str(exc)
    if len(message) > 600:
        message = message[:600] + " ..."
    return {
        "type": type(exc).__name__,
        "mro": [c.__name__ for c in type(exc).__mro__][:8],
        "message": message,
        "line": line,
        "text": text[:200],
        "trace": [f"line {f.lineno}: {(f.line or '').strip()[:120]}" for f in mine][-5:],
    }


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
    code = compile(source, filename, "exec")
    exec(code, module.__dict__)  # noqa: S102 - only ever in a sandbox child
