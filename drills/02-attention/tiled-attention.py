"""Reference and traps for tiled-attention.

Every function takes the variant keyword `causal` (drills/README.md, "Variants"): none, the
contract (no mask); bottom-right, flash-attn's causal=True: the T queries are the last T of the S
positions, query i reads keys j <= i + S - T, and a query with no key outputs zeros.

The reference walks the keys in blocks of `block` with a running max m, a running sum l and an
accumulator per query, in float32 for fp16 inputs (as FlashAttention keeps its statistics); at
most a (B, H, T, block) tile of scores is alive at once."""
import math

import torch

NEG_INF = float("-inf")


def queries(ctx, shape, dtype, scale=1.0, positive=False):
    """randn * scale, or |randn| + 0.5 (every entry positive, so keys that rise along S raise every score)."""
    x = torch.randn(shape, generator=ctx.gen)
    if positive:
        x = x.abs() + 0.5
    return (x * scale).to(dtype)


def keys(ctx, shape, dtype, top=0.0):
    """randn keys; with `top` > 0 keys whose scaled score against q rises along S, to about `top` at the
    last key (the running max rises block after block; above 88.7 exp overflows even in float32)."""
    x = torch.randn(shape, generator=ctx.gen)
    if top > 0:
        S, dh = shape[-2], shape[-1]
        q = ctx.args["q"].float()
        mean_q = max(float(q.mean()), 0.1)
        rise = torch.arange(1, S + 1, dtype=torch.float32) / S * top * math.sqrt(dh) / (dh * mean_q)
        x = 0.3 * x + rise[:, None]
    return x.to(dtype)


def _keep(T, S, j0, j1, device):
    """(T, j1 - j0) bool: key j of this block readable by query i under the bottom-right causal mask."""
    i = torch.arange(T, device=device)[:, None]
    j = torch.arange(j0, j1, device=device)[None, :]
    return j <= i + (S - T)


def _tiled(q, k, v, block, causal="none", blocks=None, rescale_sum=True, running_max=True,
           guard=True, work_dtype=None):
    dtype = q.dtype
    wd = work_dtype or (torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype)
    q, k, v = q.to(wd), k.to(wd), v.to(wd)
    B, H, T, dh = q.shape
    S = k.shape[-2]
    qs = q * (1.0 / math.sqrt(dh))  # the scale applied once, to q
    m = q.new_full((B, H, T, 1), NEG_INF)  # running max
    l = q.new_zeros((B, H, T, 1))  # running sum of exp(score - m)
    acc = q.new_zeros((B, H, T, dh))  # running sum of exp(score - m) * v
    n_blocks = -(-S // block) if blocks is None else blocks
    k_blocks = k.transpose(-2, -1).split(block, dim=-1)  # views, the last one shorter when block does not divide S
    v_blocks = v.split(block, dim=-2)
    if causal == "bottom-right":  # query i reads key j when j <= i + S - T
        last = torch.arange(T, device=q.device)[:, None] + (S - T)  # (T, 1): each query's last readable key
        j_blocks = torch.arange(S, device=q.device).split(block)
    for b in range(n_blocks):
        s = qs @ k_blocks[b]  # (B, H, T, block): the only scores alive
        if causal == "bottom-right":
            s = s.masked_fill(j_blocks[b] > last, NEG_INF)
        if not running_max:
            p = torch.exp(s)
            l = l + p.sum(-1, keepdim=True)
            acc = acc + p @ v_blocks[b]
            continue
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        m_ref = m_new
        if causal == "bottom-right" and guard:  # a row that has read no key yet: subtract 0, not -inf
            m_ref = m_new.masked_fill(m_new == NEG_INF, 0.0)
        p = torch.exp(s - m_ref)
        corr = torch.exp(m - m_ref)  # exp(m_old - m_new) <= 1: the old sums in the new max's units
        l = (l * corr if rescale_sum else l) + p.sum(-1, keepdim=True)
        acc = acc * corr + p @ v_blocks[b]
        m = m_new
    if causal == "bottom-right" and guard:
        l = torch.where(l == 0, torch.ones_like(l), l)  # a query with no key: acc is 0, so the row is 0
    return (acc / l).to(dtype)


def tiled_attention(q, k, v, block, *, causal="none"):
    return _tiled(q, k, v, block, causal)


def trap_sum_not_rescaled(q, k, v, block, *, causal="none"):
    return _tiled(q, k, v, block, causal, rescale_sum=False)  # l += rowsum(p), the old l left in old-max units


def trap_ragged_block_dropped(q, k, v, block, *, causal="none"):
    return _tiled(q, k, v, block, causal, blocks=k.shape[-2] // block)  # S // block blocks: the tail never read


def trap_full_matrix(q, k, v, block, *, causal="none"):
    """The right values from the whole (B, H, T, S) score matrix at once: what tiling exists to avoid."""
    dtype = q.dtype
    q, k, v = q.float(), k.float(), v.float()
    T, S = q.shape[-2], k.shape[-2]
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, H, T, S)
    if causal == "bottom-right":
        keep = _keep(T, S, 0, S, q.device)
        s = s.masked_fill(~keep, NEG_INF)
        return (torch.softmax(s, -1).nan_to_num(0.0) @ v).to(dtype)
    return (torch.softmax(s, dim=-1) @ v).to(dtype)


def trap_masked_block_nan(q, k, v, block):
    """Bottom-right causal tiles without a guard: a row that has seen no key keeps m = -inf, and
    exp(-inf - (-inf)) is NaN."""
    return _tiled(q, k, v, block, "bottom-right", guard=False)


def trap_no_running_max(q, k, v, block, *, causal="none"):
    """exp of the raw scores, in the inputs' dtype: fp16 overflows past 11.09, float32 past 88.7."""
    return _tiled(q, k, v, block, causal, running_max=False, work_dtype=q.dtype)


def match_overflow(call, got, trap_out):
    """The solution's result is inf or NaN somewhere, and right wherever it is finite: exp overflowed
    (where depends on the solution's own dtype for the exps: fp16 at 11.09, float32 at 88.7)."""
    want = call.expected
    if not isinstance(got, torch.Tensor) or not got.is_floating_point() or tuple(got.shape) != tuple(want.shape):
        return False
    bad = ~torch.isfinite(got)
    if not bool(bad.any()):
        return False
    ok = ~bad
    g, w = got.double()[ok], want.double()[ok]
    return bool(((g - w).abs() <= 4e-2 + 4e-2 * w.abs()).all())
