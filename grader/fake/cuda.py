"""A real GPU, when there is one: `drill check --device cuda` (docs/CLI.md).

The sandbox child copies each call's inputs to cuda:0, runs the solution
there and copies its outputs back to the CPU for the usual comparison, so
values are checked on the GPU too. Nothing else needs a GPU: the device case
on fake tensors (grader.fake.checks) runs in every check.

CUDA cannot be used in a child forked from a process that initialised it, so
the CLI starts a fresh process for a CUDA check; that process only asks
whether a device exists (NVML, without initialising CUDA) and forks its
sandbox children, which initialise CUDA themselves.

Two limits of the CPU sandbox do not fit a CUDA child and are relaxed for it,
and the report says so: the address-space limit (the driver reserves tens of
GiB of virtual memory; the resident-size watchdog still applies) and the
Landlock/seccomp confinement (the driver opens /dev/nvidia* and makes its own
threads and ioctls).
"""
from __future__ import annotations

import dataclasses
import os
from typing import Any

CHILD_ENV = "DRILL_CUDA_CHILD"  # set in the fresh process that grades on CUDA
RELAXED = ("the address-space limit (the CUDA driver reserves tens of GiB of virtual memory)",
           "Landlock and seccomp (the driver opens /dev/nvidia* and issues its own ioctls)")


def cuda_problem() -> str | None:
    """None when torch sees a CUDA device; else why not, in one line. Never initialises CUDA."""
    os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")  # ask NVML: forking stays safe afterwards
    try:
        import torch
    except Exception as exc:  # noqa: BLE001
        return f"torch cannot be imported ({type(exc).__name__}: {exc})"
    if not torch.backends.cuda.is_built():
        return f"this torch ({torch.__version__}) is built without CUDA"
    try:
        if not torch.cuda.is_available():
            return f"torch {torch.__version__} sees no CUDA device (torch.cuda.is_available() is False)"
    except Exception as exc:  # noqa: BLE001
        return f"the CUDA check failed ({type(exc).__name__}: {exc})"
    return None


def limits_for(limits: Any) -> Any:
    """The sandbox limits of a CUDA child: no RLIMIT_AS (the watchdog still bounds resident memory), no confinement."""
    rss = limits.rss_bytes or limits.memory_bytes
    return dataclasses.replace(limits, memory_bytes=1 << 46, rss_bytes=rss, confine=False, require_confinement=False)


def to_device(value: Any, device: str) -> Any:
    """Tensors inside value moved to device (lists and tuples rebuilt)."""
    import torch

    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, tuple) and not isinstance(value, torch.Size):
        return tuple(to_device(v, device) for v in value)
    if isinstance(value, list):
        return [to_device(v, device) for v in value]
    return value


def device_mismatch(value: Any, device: str) -> str | None:
    """Which returned tensor is not on `device` (a solution that moved its result to the CPU), or None."""
    import torch

    items = value if isinstance(value, (tuple, list)) and not isinstance(value, torch.Size) else [value]
    for i, item in enumerate(items):
        if isinstance(item, torch.Tensor) and item.device.type != torch.device(device).type:
            which = f"output {i}" if len(items) > 1 else "its result"
            return f"returned {which} on {item.device} while the inputs are on {device}"
    return None
