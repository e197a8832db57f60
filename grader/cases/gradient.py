"""The gradient case, the trusted half: which calls it runs on, the upstream gradient pulled back
through them, and the reference's input gradients to compare with (docs/CLI.md, "kind": "gradient").

A function has a gradient case when, on a case's own inputs made float32, the reference's floating
output depends differentiably on one of its `float` tensor inputs (its output carries a grad_fn): a
function that returns indices, counts or masks has none, and a spec can opt out with
`no_gradient_case: reason`. One fixed random upstream gradient per floating output (from the seed
and the call) is pulled back through the reference here, once per drill, seed and variant; the
solution pulls the same one back in the sandbox child (grader/sandbox/child.py) and its gradients
are judged by grader/judge/gradient.py. A case whose reference gradient is not finite (the
reference's own, say, at a point it does not define) is not a gradient case: nothing is claimed
there.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from grader.cases.prepare import Call, Prepared

MAX_CASES = 8  # calls per function: the adversarial cases come first in a spec, the plain ones after


@dataclass
class GradCase:
    """One call's gradient case: the argument positions that require grad (their names), the upstream
    gradient of each floating output (None for an output that is not floating) and the reference's
    gradient of each of those arguments (zeros where none reaches it), all float32."""

    index: int
    function: str
    wrt: list[int]
    names: list[str]
    upstream: list[Any]
    expected: list[torch.Tensor] = field(default_factory=list)

    def for_child(self) -> GradCase:
        """What the child is sent: the positions and the upstream gradient, never the expected values."""
        return GradCase(self.index, self.function, list(self.wrt), list(self.names), list(self.upstream), [])


def as_float32(value: Any) -> Any:
    """Floating tensors (anywhere in the arguments) as float32 copies; everything else as it is."""
    if isinstance(value, torch.Tensor):
        v = value.detach().clone()
        return v.float() if v.is_floating_point() else v
    if isinstance(value, (list, tuple)):
        return type(value)(as_float32(v) for v in value)
    return value


def floating_outputs(value: Any) -> list[Any]:
    """The output as a flat list: a tensor, or each item of a tuple or list (nested ones flattened);
    what is not a floating tensor is None in its place."""
    if isinstance(value, torch.Tensor):
        return [value if value.is_floating_point() else None]
    if isinstance(value, (tuple, list)):
        return [o for v in value for o in floating_outputs(v)]
    return [None]


def pull_back(outputs: list[Any], upstream: list[Any], inputs: list[torch.Tensor]) -> list[torch.Tensor | None]:
    """torch.autograd.grad of the outputs, weighted by their upstream gradients, for each input
    (None where no gradient reaches one); [None...] when no output depends on any input."""
    pairs = [(o, u) for o, u in zip(outputs, upstream)
             if o is not None and u is not None and o.requires_grad and o.shape == u.shape]
    if not pairs:
        return [None] * len(inputs)
    grads = torch.autograd.grad([o for o, _ in pairs], inputs, [u.to(o.dtype) for o, u in pairs],
                                allow_unused=True)
    return list(grads)


PLAN_SECONDS = 60.0  # CPU seconds for the reference's gradients of every case (a few hundred ms for the drills here)


def plan(prep: Prepared) -> list[GradCase]:
    """The gradient cases of `prep`'s calls: at most MAX_CASES per function, in the spec's order.

    The reference's forward and backward run in a forked child: torch's autograd engine starts
    worker threads on first use, and a process forked after that cannot run a backward ("autograd's
    threading in combination with fork-based multiprocessing"), which would leave every sandbox
    child forked from this one without a gradient case. So this process never runs one: the child
    computes each case's upstream and input gradients and sends them back as raw tensors
    (grader.transport; trusted: it ran the drill's own reference, never a solution)."""
    from grader.cases.prepare import helper, with_kwargs

    spec = prep.spec
    if getattr(spec, "no_gradient_case", ""):
        return []
    chosen = []
    per_function: dict[str, int] = {}
    for call in prep.calls:
        name = call.function.name
        if per_function.get(name, 0) >= MAX_CASES or not callable(getattr(prep.reference, name, None)):
            continue
        if not differentiable(call, list(call.args)):
            continue
        chosen.append(call)
        per_function[name] = per_function.get(name, 0) + 1
    if not chosen:
        return []

    def work() -> list[GradCase | None]:
        out: list[GradCase | None] = []
        for call in chosen:
            ref = with_kwargs(getattr(prep.reference, call.function.name), spec.call_kwargs)
            where = call.function.gradient_where
            fixed = helper(spec, prep.reference, where[3:]) if where else None
            out.append(_case(call, ref, prep.seed, fixed))
        return out

    got = _in_child(work, chosen)
    if got is None:
        raise GradientUnavailable("the reference's gradients could not be computed in a child process")
    return [c for c in got if c is not None]


class GradientUnavailable(RuntimeError):
    """The reference's gradients could not be computed: the gradient case is not checked, and says so."""


def differentiable(call: Call, args: list[Any]) -> list[int]:
    """The positions of the arguments a gradient is taken for: tensors the spec types as `float` (a
    mask, even one that arrives as float32, an index or a count is not differentiated)."""
    return [i for i, (spec_arg, a) in enumerate(zip(call.function.args, args))
            if spec_arg.dtype == "float" and isinstance(a, torch.Tensor) and a.is_floating_point() and a.numel()]


def _case(call: Call, reference: Any, seed: int, fixed: Any = None) -> GradCase | None:
    args = as_float32(call.args)
    wrt = differentiable(call, args)
    if not wrt:
        return None
    for i in wrt:
        args[i].requires_grad_(True)
    try:
        with torch.enable_grad():
            outputs = floating_outputs(reference(*args))
    except Exception:  # noqa: BLE001 - the reference refuses float32 copies of this case: no gradient case here
        return None
    if not any(o is not None and o.requires_grad for o in outputs):
        return None  # no floating output depends differentiably on the inputs: indices, counts, masks
    gen = torch.Generator().manual_seed((seed * 1_000_003 + call.index) % (2**63))
    upstream = [torch.randn(o.shape, generator=gen) if o is not None and o.requires_grad else None for o in outputs]
    if fixed is not None:  # only where the contract fixes the output (the spec's gradient_where)
        where = fixed(*as_float32(call.args))
        masks = list(where) if isinstance(where, (tuple, list)) else [where]
        upstream = [u if u is None or m is None else u * m.to(u.dtype).expand(u.shape)
                    for u, m in zip(upstream, masks + [None] * (len(upstream) - len(masks)))]
    grads = pull_back(outputs, upstream, [args[i] for i in wrt])
    expected = [torch.zeros_like(args[i]).detach() if g is None else g.detach() for i, g in zip(wrt, grads)]
    if not all(bool(torch.isfinite(e).all()) for e in expected):
        return None  # the reference's own gradient is not finite here: nothing to claim
    names = [call.function.args[i].name for i in wrt]
    return GradCase(call.index, call.function.name, wrt, names, upstream, expected)


def _in_child(work: Any, calls: list[Call]) -> list[GradCase | None] | None:
    """`work()` in a forked child; its GradCases back over a pipe as JSON with raw tensor bytes.
    None when the child fails or takes more than PLAN_SECONDS of CPU time."""
    import contextlib
    import json
    import os
    import resource
    import struct

    from grader import transport

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, leave without running anything of the parent's
        status = 1
        try:
            os.close(read_end)
            resource.setrlimit(resource.RLIMIT_CPU, (int(PLAN_SECONDS), int(PLAN_SECONDS) + 1))
            torch.set_num_threads(1)
            blobs: list[bytes] = []
            cases: list[dict[str, Any] | None] = []
            for c in work():
                if c is None:
                    cases.append(None)
                    continue
                cases.append({"index": c.index, "function": c.function, "wrt": c.wrt, "names": c.names,
                              "upstream": [None if u is None else transport.encode(u, blobs) for u in c.upstream],
                              "expected": [transport.encode(e, blobs) for e in c.expected]})
            header = json.dumps({"cases": cases, "sizes": [len(b) for b in blobs]}).encode()
            with os.fdopen(write_end, "wb") as sink:
                sink.write(struct.pack("<Q", len(header)) + header)
                for b in blobs:
                    sink.write(b)
            status = 0
        except BaseException as exc:  # noqa: BLE001 - said on the pipe's end as a failure, below
            with contextlib.suppress(OSError):
                os.write(2, f"drill: the reference's gradients: {type(exc).__name__}: {exc}\n"[:400].encode())
        finally:
            os._exit(status)
    os.close(write_end)
    data = b""
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    _, wait = os.waitpid(pid, 0)
    if wait != 0 or len(data) < 8:
        return None
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    blobs, at = [], 8 + n
    for size in header["sizes"]:
        blobs.append(data[at:at + size])
        at += size
    got: list[GradCase | None] = []
    for c in header["cases"]:
        if c is None:
            got.append(None)
            continue
        upstream = [None if u is None else transport.decode(u, blobs) for u in c["upstream"]]
        expected = [transport.decode(e, blobs) for e in c["expected"]]
        got.append(GradCase(c["index"], c["function"], c["wrt"], c["names"], upstream, expected))
    return got
