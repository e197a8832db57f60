"""Room on Python's frame stack for deep work: torch's dispatch, under fake tensors above all.

CPython 3.11 and later keep a thread's frames on a data stack made of 16 KB chunks. A call that finds
no room left in the current chunk maps a new one (mmap), and the return that empties it unmaps it
again. Torch's dispatch is dozens of frames deep per op under fake tensors, so code whose frames
happen to sit near the end of a chunk maps and unmaps one on every op: `drill validate` made some
140,000 such pairs (3,000 through `call`), and a fake run takes up to twice as long at the unlucky
depths as at the others (bench/frame_room.py prints both ways).

`call(fn, *args, **kwargs)` runs fn in a frame that claims ROOM bytes of stack it never touches: the
chunk mapped for it is that much larger, and the frames under fn fill the rest of it before they need
another. It is used where a process or thread starts its work (the CLI, a sandbox child, a helper
thread); a process forked inside it keeps the room. Only address space is claimed: pages cost memory
once frames use them. On other Pythons (3.10's frames are objects of their own) it is a plain call.
"""
from __future__ import annotations

import sys
import types
from typing import Any, Callable, TypeVar

T = TypeVar("T")

ROOM = 256 * 1024  # bytes: some 1,500 frames of a few dozen slots (the default recursion limit is 1,000 frames)


def _plain(fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    return fn(*args, **kwargs)


def _roomy() -> Callable[[Callable[..., Any], tuple, dict], Any]:
    if sys.implementation.name != "cpython" or sys.version_info < (3, 11):
        return _plain
    code = _plain.__code__
    try:
        # the frame's evaluation stack is sized by co_stacksize and never written past what the code uses
        code = code.replace(co_stacksize=code.co_stacksize + ROOM // 8, co_name="_roomy", co_qualname="_roomy")
    except (TypeError, ValueError):
        return _plain
    return types.FunctionType(code, _plain.__globals__, "_roomy")


_CALL = _roomy()


def call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """fn(*args, **kwargs), with ROOM bytes of frame stack ahead of it."""
    return _CALL(fn, args, kwargs)  # type: ignore[no-any-return]
