"""Whether the solution replaced the grader's own code inside the sandbox child.

The child's trusted code and the solution share one process, so a solution can
rebind what the child calls to report (its frame sender, the framer, os.write)
and drop the frames it does not like. `Intact` remembers, before any of the
solution's code runs, what each of those names holds; `broken()` names the ones
that changed since, and puts ours back. The child reports them with "done"
(grader.sandbox.channel), and the run is `error`. This notices rebinding, not
every patch: code changed in place, or a change undone before the check, is not
seen (README.md, "What the grader trusts"). The values are compared in the
parent whatever the child says, so none of it turns wrong values into a pass.
"""
from __future__ import annotations

import json
import os
import sys
from typing import Any

from grader import transport
from grader.sandbox import wire

_WATCHED = {
    "grader.sandbox.child": ("_send", "_call", "_run_fake", "_send_tampered", "describe_exception", "transport"),
    wire.__name__: ("_send", "transport"),
    transport.__name__: ("write_all", "frame", "frame_head", "encode", "encode_safely"),
}


class Intact:
    """What the watched names held when it was made (before the solution ran)."""

    def __init__(self) -> None:
        spaces: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [
            (module, vars(sys.modules[module]) if module in sys.modules else {}, names)
            for module, names in _WATCHED.items()]
        spaces += [("os", vars(os), ("write",)), ("json", vars(json), ("dumps",))]
        self.expected = [(f"{module}.{name}", space, name, space.get(name))
                         for module, space, names in spaces for name in names if name in space]
        self.found: list[str] = []

    def broken(self) -> list[str]:
        """Every watched name replaced so far (ours put back), in the order first seen."""
        for label, space, name, value in self.expected:
            if space.get(name) is not value:
                space[name] = value
                if label not in self.found:
                    self.found.append(label)
        return self.found
