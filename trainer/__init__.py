"""drill: the person's side of the trainer (CLI, REPL, store, scheduling, reports).

Nothing in this package imports torch at import time; grading goes through
the grader package, imported lazily.
"""
from __future__ import annotations

__version__ = "0.1.0"
