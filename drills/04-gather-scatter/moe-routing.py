"""Reference and traps for moe-routing.

Every function takes the variant keyword (drills/README.md, "Variants"): `gates` says how the kept
experts' gates are made (renormalised: the softmax over the k kept logits, the contract; full: their
probabilities in the softmax over all E logits, not renormalised). The default is the contract."""
import math

import torch


def _gate(logits, top_val, top_idx, gates):
    """(..., k) gates: the softmax over the k kept logits, or (full) the kept experts' probabilities
    in the softmax over all E logits."""
    if gates == "full":
        return torch.softmax(logits, dim=-1).gather(-1, top_idx)  # sums to less than 1
    return torch.softmax(top_val, dim=-1)


def moe_forward(x, router_logits, expert_weights, k: int, *, gates="renormalised"):
    B, T, d = x.shape
    E = expert_weights.shape[0]
    work = torch.float32 if x.dtype == torch.float16 else x.dtype
    logits = router_logits.to(work)
    top_val, top_idx = logits.topk(k, dim=-1)  # (B, T, k) each
    gate = _gate(logits, top_val, top_idx, gates).reshape(B * T, k)  # the contract: over the k kept logits only
    flat_x = x.to(work).reshape(B * T, d)  # (BT, d)
    flat_idx = top_idx.reshape(B * T, k)  # (BT, k)
    W = expert_weights.to(work)
    out = torch.zeros_like(flat_x)  # (BT, d)
    for e in range(E):
        rows, slot = (flat_idx == e).nonzero(as_tuple=True)  # (n_e,) each; rows never repeat here
        y = flat_x[rows] @ W[e]  # (n_e, d); (0, d) for an expert nobody picked, and index_add_ adds nothing
        out.index_add_(0, rows, y * gate[rows, slot][:, None])
    return out.reshape(B, T, d).to(x.dtype)


def moe_per_token(x, router_logits, expert_weights, k: int, *, gates="renormalised"):
    """The oracle: one token at a time, in float64."""
    B, T, d = x.shape
    out = torch.zeros(B, T, d, dtype=torch.float64)
    for b in range(B):
        for t in range(T):
            logits = router_logits[b, t].double()
            order = sorted(range(logits.numel()), key=lambda e: -float(logits[e]))[:k]
            kept = logits[order]
            g_k = torch.exp(kept - logits.max())
            g_k = g_k / (torch.exp(logits - logits.max()).sum() if gates == "full" else g_k.sum())
            for g, e in zip(g_k, order):
                out[b, t] += g * (x[b, t].double() @ expert_weights[e].double())
    return out


def make_router_logits(ctx, shape, dtype, idle=False):
    """Distinct logits per token, neighbours at least 0.4 apart (a clear top-k boundary, no ties,
    also after rounding to fp16). With idle, one expert is the lowest for every token."""
    idle = bool(ctx.params.get("idle", idle))
    B, T, E = shape
    idle_e = ctx.rng.randrange(E)
    ctx.shared["idle_expert"] = idle_e if idle else None
    out = torch.empty(B, T, E)
    for b in range(B):
        for t in range(T):
            ranks = torch.randperm(E, generator=ctx.gen)
            if idle:
                ranks[ranks == 0] = ranks[idle_e].item()
                ranks[idle_e] = 0
            noise = (torch.rand(E, generator=ctx.gen) - 0.5) * 0.2
            out[b, t] = ranks.float() * 0.6 + noise + ctx.rng.uniform(-2.0, 2.0)
    return out.to(dtype)


def make_expert_weights(ctx, shape, dtype):
    E, d, _ = shape
    return (torch.randn(shape, generator=ctx.gen) / math.sqrt(d)).to(dtype)


def _route(x, router_logits, expert_weights, k, gate_fn):
    B, T, d = x.shape
    work = torch.float32 if x.dtype == torch.float16 else x.dtype
    logits = router_logits.to(work)
    top_val, top_idx = logits.topk(k, dim=-1)
    gate = gate_fn(logits, top_val, top_idx)
    return top_idx.reshape(B * T, k), gate.reshape(B * T, k), x.to(work).reshape(B * T, d), expert_weights.to(work)


def _loop(flat_idx, gate, flat_x, W, transpose=False):
    out = torch.zeros_like(flat_x)
    for e in range(W.shape[0]):
        rows, slot = (flat_idx == e).nonzero(as_tuple=True)
        if rows.numel():
            w = W[e].T if transpose else W[e]
            out.index_add_(0, rows, (flat_x[rows] @ w) * gate[rows, slot][:, None])
    return out


def trap_softmax_all_experts(x, router_logits, expert_weights, k: int):
    flat_idx, gate, flat_x, W = _route(x, router_logits, expert_weights, k,
                                       lambda logits, v, i: _gate(logits, v, i, "full"))  # not renormalised over the k
    return _loop(flat_idx, gate, flat_x, W).reshape(x.shape).to(x.dtype)


def trap_renormalised_gates(x, router_logits, expert_weights, k: int):
    """The contract's softmax over the k kept logits where the variant keeps the full-softmax probabilities."""
    return moe_forward(x, router_logits, expert_weights, k)


def trap_dropped_repeats(x, router_logits, expert_weights, k: int, *, gates="renormalised"):
    flat_idx, gate, flat_x, W = _route(x, router_logits, expert_weights, k,
                                       lambda logits, v, i: _gate(logits, v, i, gates))
    N = flat_x.shape[0]
    rows = torch.arange(N).repeat_interleave(k)  # (N*k,): every row k times
    experts = flat_idx.reshape(-1)  # (N*k,)
    y = torch.bmm(flat_x[rows][:, None, :], W[experts])[:, 0] * gate.reshape(-1)[:, None]
    out = torch.zeros_like(flat_x)
    out[rows] += y  # read, add, write once: duplicate rows keep only the last slot
    return out.reshape(x.shape).to(x.dtype)


def trap_weights_transposed(x, router_logits, expert_weights, k: int, *, gates="renormalised"):
    flat_idx, gate, flat_x, W = _route(x, router_logits, expert_weights, k,
                                       lambda logits, v, i: _gate(logits, v, i, gates))
    return _loop(flat_idx, gate, flat_x, W, transpose=True).reshape(x.shape).to(x.dtype)


def trap_ungated(x, router_logits, expert_weights, k: int):
    flat_idx, gate, flat_x, W = _route(x, router_logits, expert_weights, k,
                                       lambda logits, v, i: torch.ones_like(v))
    return _loop(flat_idx, gate, flat_x, W).reshape(x.shape).to(x.dtype)
