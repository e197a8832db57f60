"""The seccomp filter on its own (no Landlock, no sandbox around it): a forked
child applies only the filter and tries what it must not do. Every attempt is
harmless even if the filter failed (signal 0 only checks; nothing is written)."""
from __future__ import annotations

import json
import os

import pytest

from grader.sandbox import confine

pytestmark = pytest.mark.skipif(not (confine.supported_arch() and confine.seccomp_available()),
                                reason="seccomp filters need Linux x86_64")


def _in_filtered_child(attempts) -> dict[str, str]:
    """Run `attempts()` (returns name -> outcome) in a child that applied the filter alone."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        code = 1
        try:
            os.close(r)
            os.setpgid(0, 0)  # its own group, so kill(0, ...) reaches no one else even unfiltered
            confine.apply_seccomp()
            os.write(w, json.dumps(attempts()).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    return json.loads(data)


def _try(action) -> str:
    try:
        action()
        return "allowed"
    except OSError as exc:
        return "EPERM" if exc.errno == 1 else f"errno {exc.errno}"


def test_signals_outside_the_child_are_denied_by_seccomp_alone():
    parent = os.getpid()

    def attempts():
        return {
            "parent": _try(lambda: os.kill(parent, 0)),
            "everyone": _try(lambda: os.kill(-1, 0)),
            "init": _try(lambda: os.kill(1, 0)),
            "parent group": _try(lambda: os.killpg(os.getpgid(parent), 0)),
            "itself": _try(lambda: os.kill(os.getpid(), 0)),
            "its group": _try(lambda: os.kill(0, 0)),
            "its group by id": _try(lambda: os.killpg(os.getpid(), 0)),
        }

    got = _in_filtered_child(attempts)
    assert got == {"parent": "EPERM", "everyone": "EPERM", "init": "EPERM", "parent group": "EPERM",
                   "itself": "allowed", "its group": "allowed", "its group by id": "allowed"}


def test_memfd_and_new_processes_are_denied_by_seccomp_alone():
    def attempts():
        out = {"memfd": _try(lambda: os.close(os.memfd_create("hidden")))}

        def fork():
            child = os.fork()
            if child == 0:
                os._exit(0)
            os.waitpid(child, 0)

        out["fork"] = _try(fork)
        out["setpgid"] = _try(lambda: os.setpgid(0, os.getppid()))
        return out

    assert _in_filtered_child(attempts) == {"memfd": "EPERM", "fork": "EPERM", "setpgid": "EPERM"}

