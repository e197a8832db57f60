"""Call arguments in shared memory, so the parent decides whether a solution
modified its inputs in place.

The parent lays every tensor of every call's arguments out once per job
(`Layout`: offsets, shapes, strides and the pristine bytes), and before each
fork copies the pristine bytes into a fresh shared anonymous mapping (an
"arena"). The child, before any of the solution's code runs, builds its
arguments as tensors *on* that mapping: an in-place write by the solution
lands in memory the parent can read. After each result the parent compares
the call's bytes with the pristine ones. The child cannot patch that check
(it runs in the parent), nor redirect the writes: its arguments exist before
the solution is loaded.

What the parent cannot see is a change of a tensor's metadata in place
(`x.t_()`, `x.set_(...)`, `x.resize_(...)`); the child still reports those
after each call, as a second opinion.
"""
from __future__ import annotations

import mmap
import os
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

_ALIGN = 64


@dataclass(frozen=True)
class _Slot:
    offset: int
    nbytes: int
    dtype: Any
    size: tuple[int, ...]
    stride: tuple[int, ...]


class Layout:
    """Where each call's argument tensors live in an arena, and their pristine bytes."""

    def __init__(self, calls: list[tuple[int, str, list[Any], list[str]]]):
        self.calls = calls  # held, so the ids in the cache key stay theirs
        self.templates: dict[int, list[Any]] = {}
        self.slots: dict[int, list[tuple[str, _Slot]]] = {}  # call -> (argument name, slot)
        chunks: list[bytes] = []
        self.size = 0
        for index, _, args, names in calls:
            self.slots[index] = []
            self.templates[index] = [self._place(arg, name, index, chunks) for arg, name in zip(args, names)]
        self.pristine = b"".join(chunks)

    def _place(self, value: Any, name: str, index: int, chunks: list[bytes]) -> Any:
        import torch

        if isinstance(value, torch.Tensor) and (type(value) is not torch.Tensor or value.device.type != "cpu"
                                                or value.layout != torch.strided):
            return _Fresh(value)  # not plain CPU memory: a private copy, checked by the child alone
        if isinstance(value, torch.Tensor):
            copy = value.detach().clone()  # the layout fresh() gives: strides kept when dense
            storage = copy.untyped_storage()
            raw = torch.empty(0, dtype=torch.uint8).set_(storage, 0, (storage.nbytes(),), (1,))
            data = raw.numpy().tobytes()
            pad = -self.size % _ALIGN
            chunks.append(b"\0" * pad)
            self.size += pad
            slot = _Slot(self.size, len(data), copy.dtype, tuple(copy.shape), tuple(copy.stride()))
            chunks.append(data)
            self.size += len(data)
            self.slots[index].append((name, slot))
            return slot
        if type(value) in (tuple, list):
            return type(value)(self._place(v, name, index, chunks) for v in value)
        if type(value) is dict:
            return {k: self._place(v, name, index, chunks) for k, v in value.items()}
        return value

    def __getstate__(self) -> dict[str, Any]:
        """Sent to the zygote (grader.sandbox.zygote) without `calls`: the child needs the templates,
        slots and pristine bytes only."""
        return {k: v for k, v in self.__dict__.items() if k != "calls"}

    def arena(self) -> Arena | None:
        """Parent: a fresh shared mapping holding the pristine bytes (None: no tensors)."""
        if not self.size:
            return None
        return Arena.holding(self.pristine)

    def arguments(self, arena: mmap.mmap | None) -> dict[int, list[Any]]:
        """Child: each call's arguments, every tensor a view of the arena."""
        return {index: [_build(t, arena) for t in template] for index, template in self.templates.items()}

    def untouched(self, arena: mmap.mmap | None) -> bool:
        """Parent: no byte of any call's arguments changed (one comparison of the whole arena)."""
        return arena is None or arena[:self.size] == self.pristine

    def modified(self, arena: mmap.mmap | None, index: int) -> list[str]:
        """Parent: the arguments of call `index` whose bytes differ from the pristine ones."""
        out: list[str] = []
        for name, slot in self.slots.get(index, []):
            end = slot.offset + slot.nbytes
            if arena is not None and arena[slot.offset:end] != self.pristine[slot.offset:end] and name not in out:
                out.append(name)
        return out


class Arena(mmap.mmap):
    """A shared mapping backed by a memory file, whose descriptor (`fd`) can be handed to a child
    forked elsewhere (grader.sandbox.zygote), which maps the same pages. Closed with the mapping."""

    fd: int = -1

    @classmethod
    def holding(cls, data: bytes) -> Arena:
        """A mapping holding `data`; without memory files (an old kernel), an anonymous shared one
        (`fd` -1), which only a child forked from this process can map."""
        try:
            fd = os.memfd_create("drill-arena", os.MFD_CLOEXEC)
        except (AttributeError, OSError):
            arena = cls(-1, len(data), flags=mmap.MAP_SHARED)
            arena.write(data)
            return arena
        try:
            os.ftruncate(fd, len(data))
            arena = cls(fd, len(data), flags=mmap.MAP_SHARED)
        except BaseException:
            os.close(fd)
            raise
        arena.fd = fd
        arena.write(data)
        return arena

    def close(self) -> None:
        fd, self.fd = self.fd, -1
        if fd >= 0:
            os.close(fd)
        super().close()


@dataclass(frozen=True)
class _Fresh:
    value: Any


def _build(template: Any, arena: mmap.mmap | None) -> Any:
    import torch

    if isinstance(template, _Fresh):
        from grader.cases.prepare import fresh

        return fresh(template.value)
    if isinstance(template, _Slot):
        if template.nbytes == 0 or arena is None:
            return torch.empty_strided(template.size, template.stride, dtype=template.dtype)
        raw = torch.frombuffer(arena, dtype=torch.uint8, count=template.nbytes, offset=template.offset)
        return torch.empty(0, dtype=template.dtype).set_(raw.untyped_storage(), 0, template.size, template.stride)
    if type(template) in (tuple, list):
        return type(template)(_build(v, arena) for v in template)
    if type(template) is dict:
        return {k: _build(v, arena) for k, v in template.items()}
    return template


_CACHE: OrderedDict[tuple, Layout] = OrderedDict()


def layout_for(calls: list[tuple[int, str, list[Any], list[str]]]) -> Layout:
    """The layout of a job's calls, cached by the identity of their (cached, prepared) arguments."""
    key = tuple((i, id(args)) for i, _, args, _ in calls)
    found = _CACHE.get(key)
    if found is not None:
        _CACHE.move_to_end(key)
        return found
    layout = _CACHE[key] = Layout(calls)
    while len(_CACHE) > 8:
        _CACHE.popitem(last=False)
    return layout
