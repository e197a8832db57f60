"""Shared oracles: trusted library implementations that several drills use (torch's
SDPA), named by a spec as `oracle: <name>`. A drill's own oracle lives beside it,
in `<id>.oracle.py` (drills/README.md), and is looked up first.

Every public top-level function of a module here is an oracle; the torch-free list
the parser checks names against is read from these same files
(grader.spec.names.shared_oracles). Oracles receive the call's arguments with
floating tensors upcast to float64 and return the expected result.
"""
from __future__ import annotations

import importlib
from typing import Callable


def get(name: str) -> Callable:
    """The shared oracle `name` (KeyError naming the known ones when there is none)."""
    from grader.spec import names

    module = names.shared_oracle_module(name)
    if module is None:
        raise KeyError(f"unknown oracle {name!r}; known: {', '.join(sorted(names.shared_oracles()))}")
    return getattr(importlib.import_module(module), name)
