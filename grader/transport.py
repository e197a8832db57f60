"""Values across the sandbox boundary: a JSON header plus raw bytes, never pickle.

The child encodes what a solution returned; the parent decodes it into plain
torch tensors and Python scalars. Anything else comes back as a `Foreign`
marker naming its type, so the parent never runs code the child chose.
"""
from __future__ import annotations

import json
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MAX_TENSOR_BYTES = 64 * 2**20  # a bigger result is described, not sent

DTYPE_NAMES = ("float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
                "complex64", "complex128")


@dataclass(frozen=True)
class Foreign:
    """A returned object the grader does not accept (numpy array, generator, ...)."""

    type_name: str
    detail: str = ""
    shape: tuple[int, ...] | None = None
    dtype: str | None = None


@dataclass(frozen=True)
class Oversized:
    """A tensor too large to send back: its shape and dtype only."""

    shape: tuple[int, ...]
    dtype: str


@dataclass(frozen=True)
class SeqValue:
    """A list (not a tuple) returned by a solution; tuples decode as tuple."""

    items: tuple[Any, ...]


def encode_safely(value: Any, blobs: list[bytes]) -> Any:
    """Child side: `encode`, except that an object that misbehaves while it is
    read (raises, recurses, lies about its class) is described as what it is,
    a Foreign of its real type, never reported as the solution raising."""
    mark = len(blobs)
    try:
        if hasattr(value, "__next__") and not _is_tensor(value):
            return {"t": "foreign", "type": "generator" if type(value).__name__ == "generator" else
                    type(value).__name__, "detail": "an iterator"}
        return encode(value, blobs)
    except BaseException as exc:  # noqa: BLE001 - whatever a returned object does, it is data
        del blobs[mark:]
        return {"t": "foreign", "type": type(value).__name__[:60],
                "detail": f"could not be read ({type(exc).__name__})"}


def _is_tensor(value: Any) -> bool:
    import torch

    return isinstance(value, torch.Tensor)


def _tensor(value: Any, blobs: list[bytes]) -> dict[str, Any]:
    """A tensor's real data, read with every __torch_function__ switched off: a subclass's, and a mode's (in
    a sandbox child the ban guards' mode, whose Python hop on each of these reads tripled their cost, or one
    the solution entered, which has no say in how its result is read)."""
    import torch

    base = torch._C.TensorBase

    def real(name: str) -> Any:  # the tensor's own attribute, never a subclass's property
        return getattr(base, name).__get__(value, type(value))

    with torch._C.DisableTorchFunction():
        shape = [int(s) for s in real("shape")]
        dtype = str(real("dtype")).replace("torch.", "")
        if real("is_nested"):
            return {"t": "foreign", "type": "nested tensor", "dtype": dtype}
        layout = real("layout")
        if layout != torch.strided:  # sparse, sparse_csr, ...: said as such, never densified here
            return {"t": "foreign", "type": f"{str(layout).replace('torch.', '')} tensor", "shape": shape,
                    "dtype": dtype, "detail": "return a dense tensor"}
        if real("device").type == "meta":
            return {"t": "foreign", "type": "meta tensor (it holds no values)", "shape": shape, "dtype": dtype}
        t = torch.Tensor.as_subclass(value, torch.Tensor).detach()  # a subclass: only its real data travels
        if list(t.shape) != shape:
            return {"t": "foreign", "type": f"{type(value).__name__[:40]} (a tensor whose shape is not its own)"}
        if t.is_conj():
            t = t.resolve_conj()
        if t.is_neg():
            t = t.resolve_neg()
        return _strided(t, shape, dtype, blobs)


def encode(value: Any, blobs: list[bytes], depth: int = 0) -> Any:
    """Child side: a JSON-able description of value, raw bytes appended to blobs."""
    import torch

    if depth > 4:
        return {"t": "foreign", "type": type(value).__name__, "detail": "nested too deeply"}
    if isinstance(value, torch.Tensor):
        return _tensor(value, blobs)
    return _plain(value, blobs, depth)


def _strided(t: Any, shape: list[int], dtype: str, blobs: list[bytes]) -> dict[str, Any]:
    import torch

    nbytes = t.numel() * t.element_size()
    if nbytes > MAX_TENSOR_BYTES or dtype not in DTYPE_NAMES:
        return {"t": "oversized" if nbytes > MAX_TENSOR_BYTES else "foreign", "shape": shape, "dtype": dtype,
                "type": "tensor", "detail": f"dtype {dtype}"}
    t = t.cpu().contiguous()
    if t.dtype == torch.bfloat16:
        raw = t.view(torch.int16).numpy().tobytes()
    else:
        raw = t.numpy().tobytes()
    blobs.append(raw)
    return {"t": "tensor", "dtype": dtype, "shape": shape, "blob": len(blobs) - 1}


def _plain(value: Any, blobs: list[bytes], depth: int) -> Any:
    import torch

    if isinstance(value, bool):
        return {"t": "bool", "v": value}
    if isinstance(value, int):
        return {"t": "int", "v": str(value)}
    if isinstance(value, float):
        return {"t": "float", "v": repr(value)}
    if value is None:
        return {"t": "none"}
    if isinstance(value, torch.Size):
        return {"t": "tuple", "items": [encode(int(v), blobs, depth + 1) for v in value]}
    if type(value) is tuple or type(value) is list:
        kind = "tuple" if type(value) is tuple else "list"
        if len(value) > 64:
            return {"t": "foreign", "type": kind, "detail": f"{len(value)} items"}
        return {"t": kind, "items": [encode(v, blobs, depth + 1) for v in value]}
    try:
        import numpy as np

        if isinstance(value, np.ndarray):
            return {"t": "foreign", "type": "numpy.ndarray", "shape": list(value.shape), "dtype": str(value.dtype)}
        if isinstance(value, np.integer):  # has __index__: accepted where the contract says int
            return {"t": "int", "v": str(int(value)), "via": f"numpy.{type(value).__name__}"}
        if isinstance(value, np.generic):
            return {"t": "foreign", "type": f"numpy.{type(value).__name__}", "detail": repr(value.item())[:40]}
    except Exception:  # noqa: BLE001, S110 - numpy misbehaving: fall through to the generic encodings
        pass
    if hasattr(value, "__index__") and not isinstance(value, type):
        try:
            return {"t": "int", "v": str(int(value.__index__())), "via": type(value).__name__}
        except Exception:  # noqa: BLE001, S110 - a broken __index__: encoded as foreign below
            pass
    return {"t": "foreign", "type": type(value).__name__}


def decode(desc: Any, blobs: list[bytes]) -> Any:
    """Parent side: rebuild plain values. Unknown shapes become Foreign."""
    if not isinstance(desc, dict):
        return Foreign("invalid")
    kind = desc.get("t")
    if kind == "tensor":
        return _decode_tensor(desc, blobs)
    if kind == "oversized":
        return Oversized(tuple(int(s) for s in desc.get("shape", [])), str(desc.get("dtype")))
    if kind == "bool":
        return bool(desc.get("v"))
    if kind in ("int", "float"):
        return _number(kind, desc.get("v"))
    if kind == "none":
        return None
    if kind == "tuple":
        return tuple(decode(d, blobs) for d in desc.get("items", []))
    if kind == "list":
        return SeqValue(tuple(decode(d, blobs) for d in desc.get("items", [])))
    shape = desc.get("shape")
    return Foreign(str(desc.get("type", "object"))[:60], str(desc.get("detail", ""))[:80],
                   tuple(int(s) for s in shape) if isinstance(shape, list) else None, desc.get("dtype"))


def _number(kind: str, v: Any) -> Any:
    """An int or a float from its wire form; Foreign(kind) when it is not one."""
    try:
        return int(v) if kind == "int" else float(v)
    except (TypeError, ValueError):
        return Foreign(kind)


def _decode_tensor(desc: dict[str, Any], blobs: list[bytes]) -> Any:
    """A tensor from its header and blob; Foreign when the two disagree."""
    import torch

    dtype_name = desc.get("dtype")
    if dtype_name not in DTYPE_NAMES:
        return Foreign("tensor", f"dtype {dtype_name}")
    dtype = getattr(torch, dtype_name)
    shape = [int(s) for s in desc.get("shape", [])]
    idx = int(desc.get("blob", -1))
    raw = blobs[idx] if 0 <= idx < len(blobs) else b""
    numel = 1
    for s in shape:
        numel *= s
    itemsize = torch.empty((), dtype=dtype).element_size()
    if len(raw) != numel * itemsize:
        return Foreign("tensor", "byte count does not match its shape")
    if numel == 0:
        return torch.empty(shape, dtype=dtype)
    if dtype == torch.bfloat16:
        flat = torch.frombuffer(bytearray(raw), dtype=torch.int16).view(torch.bfloat16)
    else:
        flat = torch.frombuffer(bytearray(raw), dtype=dtype)
    return flat.reshape(shape).clone()


# ---- framing: 4-byte big-endian header length, header JSON, then each blob with its length
# The one place the wire format is written: the sandbox child's frames (grader.sandbox.wire) and
# write_frame both come through frame_head; FrameReader below is the one reader.


def frame_head(header: dict, blobs: Sequence[bytes] = ()) -> bytes:
    """The length prefix and JSON header of a frame carrying `blobs` (they follow it, in order)."""
    header = dict(header)
    header["blob_sizes"] = [len(b) for b in blobs]
    head = json.dumps(header).encode()
    return struct.pack(">I", len(head)) + head


def frame(header: dict, blobs: Sequence[bytes] = ()) -> bytes:
    """A whole frame as bytes: what write_frame writes."""
    return frame_head(header, blobs) + b"".join(blobs)


def write_frame(fd: int, header: dict, blobs: Sequence[bytes] = ()) -> None:
    write_all(fd, frame_head(header, blobs))
    for b in blobs:
        write_all(fd, b)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of `data` (os.write may take only part of it)."""
    import os

    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


class FrameReader:
    """Incremental parser for frames arriving on the result pipe."""

    def __init__(self, max_bytes: int):
        self.buf = bytearray()
        self.max_bytes = max_bytes
        self.total = 0

    def feed(self, data: bytes) -> list[tuple[dict, list[bytes]]]:
        self.total += len(data)
        if self.total > self.max_bytes:
            raise OverflowError("the result stream is too large")
        self.buf += data
        frames = []
        while True:
            if len(self.buf) < 4:
                break
            (hlen,) = struct.unpack(">I", self.buf[:4])
            if hlen > 1 << 20:
                raise ValueError("frame header too large")
            if len(self.buf) < 4 + hlen:
                break
            try:
                header = json.loads(bytes(self.buf[4:4 + hlen]))
            except RecursionError as exc:
                raise ValueError("a frame nested too deeply") from exc
            except ValueError as exc:
                raise ValueError("unreadable frame header") from exc
            sizes = header.get("blob_sizes", []) if isinstance(header, dict) else []
            if not isinstance(sizes, list) or not all(isinstance(s, int) and s >= 0 for s in sizes):
                raise ValueError("bad blob sizes")
            need = 4 + hlen + sum(sizes)
            if len(self.buf) < need:
                break
            pos = 4 + hlen
            blobs = []
            for s in sizes:
                blobs.append(bytes(self.buf[pos:pos + s]))
                pos += s
            del self.buf[:need]
            frames.append((header, blobs))
        return frames
