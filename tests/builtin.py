"""The built-in drills' catalogue, parsed once per test process and shared read-only.

Parsing all 32 specs takes about a second; a dozen test modules need the same
answer. Tests that check the parser or the catalogue cache themselves call the
real functions instead."""
from __future__ import annotations

from functools import lru_cache

from grader.catalogue import Catalogue, builtin_drill_root, load_catalogue


@lru_cache(maxsize=1)
def builtin_catalogue() -> Catalogue:
    """The built-in drills only, whatever DRILL_PATH says."""
    return load_catalogue([builtin_drill_root()])
