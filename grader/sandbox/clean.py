"""Whether a run left a reused sandbox child as it found it (grader.sandbox.reuse).

A reused child grades one file after another, each in a fresh module with fresh
arguments. Its verdicts stay those of a fresh child only while nothing a run can
change survives into the next one, so the child takes a `State` before the first
run and compares after each: the namespaces of torch and the modules a solution
calls, sys.modules, the interpreter's hooks, torch's global settings, signal
handlers and timers, the environment, the working directory and the open
descriptors. Any difference, and the child is not reused: the next file gets a
fresh child. The random generators are not compared but put back before each run.

What it cannot see: C-level state changed without a Python trace (a kernel
registered with torch.library, an audit hook); a sample file has no reason to do
either, and `drill check` always grades in a fresh child.
"""
from __future__ import annotations

import gc
import os
import random
import signal
import sys
import threading
import warnings
from typing import Any

# the namespaces a solution reaches for (and could patch): their names -> objects are compared
_MODULES = ("builtins", "torch", "torch.nn", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special",
            "torch.nn.init", "torch.autograd", "torch.random", "torch.functional", "torch.overrides", "math",
            "operator", "functools", "itertools", "collections", "random", "numpy", "numpy.linalg", "scipy",
            "scipy.optimize", "torchvision", "torchvision.ops", "einops",
            # and the grader's own code the child runs the next file with
            "grader.sandbox.child", "grader.sandbox.wire", "grader.sandbox.clean", "grader.sandbox.inputs",
            "grader.sandbox.solution", "grader.transport", "grader.fake.checks", "grader.fake.meter",
            "grader.bans.calls", "grader.bans.dispatch", "grader.cases.prepare")
_OWN = ("solution",)  # the module each run registers for its file (grader.sandbox.solution.new_module)
_FDS = 256  # descriptors looked at: the child closed everything above its own few (grader.sandbox.prepare)


def _ids(namespace: Any) -> dict[str, int]:
    return {k: id(v) for k, v in dict(namespace).items()}


def _torch_settings() -> tuple:
    import torch

    return (torch.get_default_dtype(), torch.is_grad_enabled(), torch.is_inference_mode_enabled(),
            str(torch.get_default_device()), torch.are_deterministic_algorithms_enabled(),
            torch.get_num_threads(), torch.get_float32_matmul_precision(), torch.is_anomaly_enabled(),
            torch._C._len_torch_function_stack(), torch._C._len_torch_dispatch_stack(),
            torch.backends.mkldnn.enabled, torch.backends.cudnn.enabled)


def _process() -> tuple:
    mask = os.umask(0o077)
    os.umask(mask)
    fds = []
    for fd in range(_FDS):
        try:
            os.fstat(fd)
        except OSError:
            continue
        fds.append(fd)
    handlers = []
    for sig in sorted(signal.valid_signals()):
        try:
            handlers.append((int(sig), id(signal.getsignal(sig))))
        except (OSError, ValueError):
            pass
    timers = tuple(signal.getitimer(t) for t in (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF))
    return (os.getcwd(), dict(os.environ), mask, tuple(fds), tuple(handlers), timers, threading.active_count())


def _interpreter() -> tuple:
    return (id(sys.gettrace()), id(sys.getprofile()), id(getattr(threading, "_trace_hook", None)),
            id(getattr(threading, "_profile_hook", None)), tuple(map(id, sys.meta_path)), tuple(map(id, sys.path_hooks)),
            tuple(sys.path), id(sys.displayhook), id(sys.excepthook), id(sys.unraisablehook), id(sys.breakpointhook),
            id(sys.stdin), id(sys.stdout), id(sys.stderr), sys.getrecursionlimit(), sys.getswitchinterval(),
            tuple(map(id, gc.callbacks)), gc.isenabled(), gc.get_threshold(), tuple(warnings.filters),
            _atexit_count())


def _atexit_count() -> int:
    import atexit

    try:
        return int(atexit._ncallbacks())
    except Exception:  # noqa: BLE001 - a Python without it: nothing to compare
        return -1


def _classes() -> dict[str, dict[str, int]]:
    import torch

    return {c.__name__: _ids(vars(c)) for c in (torch.Tensor, torch.nn.Module, torch.nn.Parameter,
                                                torch._C.TensorBase)}


class State:
    """What a run may change, taken before the first run (and the generators to put back)."""

    def __init__(self) -> None:
        import torch

        # first what may import lazily (torch's default device, numpy.random), then the modules
        self._rng = (torch.get_rng_state(), random.getstate(), _numpy_state())
        self.torch = _torch_settings()
        self.classes = _classes()
        self.process = _process()
        self.interpreter = _interpreter()
        self.modules = {k: id(v) for k, v in list(sys.modules.items()) if k not in _OWN}
        self.namespaces = {name: _ids(vars(sys.modules[name])) for name in _MODULES if name in sys.modules}

    def same(self) -> bool:
        """True when the process is as this State found it (never raises: a failure is a difference).
        A module imported meanwhile from the installed libraries (torch imports some lazily, a file
        may import numpy) is no difference: it joins what the next run is compared with."""
        try:
            now = {k: id(v) for k, v in list(sys.modules.items()) if k not in _OWN}
            if now != self.modules and any(now.get(k) != v for k, v in self.modules.items()):
                return False
            new = [k for k in now if k not in self.modules] if len(now) != len(self.modules) else []
            if not all(_installed(sys.modules[k]) for k in new):
                return False
            spaces = {n: _ids(vars(sys.modules[n])) for n in _MODULES if n in sys.modules}
            if not (all(_same_names(ids, spaces.get(n, {})) for n, ids in self.namespaces.items())
                    and _classes() == self.classes and _torch_settings() == self.torch
                    and _process() == self.process and _interpreter() == self.interpreter):
                return False
            self.modules.update((k, now[k]) for k in new)
            self.namespaces = spaces
            return True
        except BaseException:  # noqa: BLE001 - what cannot be read is not known to be unchanged
            return False

    def restore_generators(self) -> None:
        """torch's, Python's and numpy's random generators as they were: each run draws the same numbers."""
        import torch

        torch_state, py_state, np_state = self._rng
        torch.set_rng_state(torch_state)
        random.setstate(py_state)
        if np_state is not None:
            sys.modules["numpy"].random.set_state(np_state)


def _same_names(before: dict[str, int], now: dict[str, int]) -> bool:
    """Every name still bound to the same object; a name added since may only be a submodule the
    import system loaded (`import scipy.optimize` binds `optimize` in scipy)."""
    if now == before:
        return True
    if any(now.get(k) != v for k, v in before.items()):
        return False
    added = [v for k, v in now.items() if k not in before]
    if not added:
        return True
    by_id = {id(m): m for m in list(sys.modules.values())}
    return all(v in by_id and _installed(by_id[v]) for v in added)


def _installed(module: Any) -> bool:
    """A module the import system loaded from the installed libraries (or a built-in one), not an
    object a run put in sys.modules, nor a file of the scratch folder."""
    spec = getattr(module, "__spec__", None)
    origin = getattr(spec, "origin", None)
    if origin in ("built-in", "frozen"):
        return True
    path = getattr(module, "__file__", None)
    if not isinstance(path, str) or not os.path.isabs(path) or path != origin:
        return False
    roots = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, _GRADER)}
    here = os.path.realpath(path)
    return not here.startswith(os.path.realpath(os.getcwd()) + os.sep) and any(
        here.startswith(r + os.sep) for r in roots)


_GRADER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # grader/: its own modules, imported lazily


def _numpy_state() -> Any:
    numpy = sys.modules.get("numpy")
    try:
        return numpy.random.get_state() if numpy is not None else None
    except Exception:  # noqa: BLE001 - an odd numpy: its generator is not put back
        return None
