"""Confinement beyond rlimits (Landlock, seccomp), applied in the sandbox child.

`probe()` says what this kernel offers; `apply_child()` applies what it can.
Until the sandbox work lands, nothing beyond rlimits is enforced, and probe()
says so plainly.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Feature:
    name: str
    enforced: bool
    detail: str


def probe() -> list[Feature]:
    return [
        Feature("filesystem (Landlock)", False, "not implemented yet: the child can write where the user can"),
        Feature("process/network (seccomp)", False, "not implemented yet: the child can start programs and open sockets"),
    ]


def apply_child() -> None:
    """Apply every available confinement to the current (child) process."""
    return None
