"""A standby child's rehearsal: common tensor work, run once before its source comes.

A child forked from the zygote shares the zygote's memory until it writes to it; the first
write to each page costs a copy (a fault). A timed run that is the first to go through torch's
Python layers (its ops' fake-tensor rules, autograd, the allocators' free lists) pays thousands
of such faults (2,800 for an attention drill's reference: some 15 ms of a 40 ms run); the same
run a second time pays almost none. So a standby child, idle anyway, rehearses: it runs a broad mix
of the ops solutions use (views, matmuls, softmax, masks, reductions, gathers, scatters, joins)
on tensors of its own, in each way the job will run them: real and without grad (the cases),
with a backward (the gradient case), on fake CUDA tensors under the meter (the device case,
memory at scale). That copies most of those pages ahead (bench/stages.py times the effect).
The zygote (grader.sandbox.zygote) runs the same rehearsal once before it forks anyone: what torch
sets up on first use (ops resolved, fake-tensor rules, autograd's engine) is then done once for every
child, and each child only copies the pages. Its fake-tensor runs go on fake CUDA tensors with plain
sizes, the way most device cases run; a job whose fake runs go another way (on the CPU: a drill with
no device case; with symbolic sizes: nonzero-style code) has the zygote rehearse that way too, once,
before it forks that job's first child (`WAYS`, `ways_of`), so a cold `drill check` does not wait
for ways its drill never runs (symbolic sizes alone are about a second of the zygote's start).

Trusted and generic: it knows nothing of the drill (no reference, no cases), draws no random
numbers (the solution's generators stay as the job sets them), and runs before the banned-call
guards are installed (grader.sandbox.child), so no ban of any drill can fire on it. What it
leaves behind is garbage, freed before the source comes.
"""
from __future__ import annotations

import math
from typing import Any


WAYS = (("cuda", False),)  # (device, symbolic sizes) of the fake-tensor runs a rehearsal makes unless told


def rehearse(real: bool, gradient: bool, fake: bool, ways: tuple[tuple[str, bool], ...] = WAYS) -> None:
    """Run the mix once in each way asked for; never raises (a rehearsal only saves time). `ways`: the
    (device, symbolic sizes) pairs of the fake-tensor runs, when `fake`."""
    from grader.sandbox import quiet

    try:
        with quiet.machinery():
            _rehearse(real, gradient, fake, ways)
    except BaseException:  # noqa: BLE001, S110 - the timed run reports its own errors
        pass


def ways_of(plan: Any) -> set[tuple[str, bool]]:
    """The (device, symbolic sizes) pairs a job's fake-tensor plan (grader.fake.checks.Plan) runs in."""
    if plan is None or not getattr(plan, "active", False):
        return set()
    return {(fp.run_device, bool(fp.shape_env)) for fp in plan.functions if fp.device or fp.scale}


def _rehearse(real: bool, gradient: bool, fake: bool, ways: tuple[tuple[str, bool], ...] = WAYS) -> None:
    import torch

    from grader.fake import checks

    checks.settle_autograd()  # before any backward, and before any fake CUDA tensor (its docstring)

    x = torch.linspace(-2.0, 2.0, 2 * 6 * 8).reshape(2, 6, 8)
    keep = (torch.arange(6) % 4 != 3).expand(2, 6)
    if real:
        with torch.no_grad():
            _mix(x, keep)
            _mix(x.double(), keep.long())
    if gradient:
        leaf = x.clone().requires_grad_(True)
        with torch.enable_grad(), torch.autograd.set_multithreading_enabled(False):
            outputs = _mix(leaf, keep)
            torch.autograd.grad(outputs, [leaf], [torch.ones_like(o) for o in outputs], allow_unused=True)
    if fake and checks.problem() is None:
        sketches = [checks.Sketch((4, 64, 32), x.dtype), checks.Sketch((4, 64), keep.dtype)]
        for device, symbolic in ways:
            # through the same runner and meter as the device case and memory at scale
            checks.run(_mix, sketches, device, "<rehearsal>", shape_env=symbolic, cache=False)


def _mix(x: Any, keep: Any) -> list[Any]:
    """x: (B, T, d) floating, keep: (B, T); the kinds of op the drills' solutions make."""
    import torch
    import torch.nn.functional as F

    B, T, d = x.shape
    heads = x.reshape(B, T, 2, d // 2).transpose(1, 2)  # (B, 2, T, d/2)
    scores = heads @ heads.transpose(-2, -1) / math.sqrt(d // 2)
    scores = scores.masked_fill(~keep.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    ctx = (torch.softmax(scores, dim=-1) @ heads).transpose(1, 2).contiguous().view(B, T, d)
    causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
    mixed = torch.where(causal, torch.einsum("btd,bsd->bts", x, ctx), torch.zeros((), dtype=x.dtype, device=x.device))
    idx = torch.arange(T, device=x.device).expand(B, T)
    gathered = x.gather(1, idx.unsqueeze(-1).expand(B, T, d))
    scattered = torch.zeros_like(x).scatter_add(1, idx.unsqueeze(-1).expand(B, T, d), x)
    picked = x.index_select(2, torch.arange(0, d, 2, device=x.device))
    joined = torch.cat([ctx, gathered], dim=-1) + torch.stack([x, scattered]).sum(0).repeat(1, 1, 2)
    normed = (x - x.mean(-1, keepdim=True)) * torch.rsqrt(x.var(-1, keepdim=True, unbiased=False) + 1e-5)
    logits = F.log_softmax(mixed, dim=-1) + F.pad(picked, (0, T - picked.shape[-1])).clamp(-5, 5)
    top = logits.topk(2, dim=-1).values.sum(-1) + logits.amax(-1) + logits.logsumexp(-1)
    counts = (x > 0).sum(-1).to(x.dtype) + x.abs().argmax(-1).to(x.dtype) + x.cumsum(1)[..., 0]
    total = (joined.exp().log1p().mean((1, 2)) + normed.permute(2, 0, 1).flatten(1).norm(dim=0).reshape(B, T).sum(-1)
             + (top + counts).sum(-1) + x.new_full((B,), 0.5) + F.relu(x).max(dim=-1).values.sum(-1))
    return [ctx, total]
