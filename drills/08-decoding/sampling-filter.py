"""Reference and traps for sampling-filter: temperature, per-row top-k and min-p on a batch of logits.

Every function takes the variant keyword (drills/README.md, "Variants"): `order` says when the
temperature applies. temp-first (the contract; Hugging Face's generate() and vLLM's sampler): z =
logits / temperature, then top-k and min-p on z. temp-last (llama.cpp's default sampler chain): top-k
and min-p on the raw logits, the survivors divided by the temperature afterwards. Either way the
kept entries come back as logits / temperature and the rest as -inf. The defaults are the contract."""
import math

import torch


def _keep(s, top_k, min_p):
    """(B, V) bool: the entries of the scores s that survive top-k (ties with the k-th kept; 0 = off)
    and min-p (softmax(s)_i >= min_p * max softmax(s), i.e. s_i - max s >= log(min_p))."""
    V = s.shape[-1]
    desc = s.sort(dim=-1, descending=True).values  # (B, V)
    kth = desc.gather(-1, (top_k.clamp(1, V) - 1)[:, None])  # (B, 1): the k-th largest score
    keep = (s >= kth) | (top_k == 0)[:, None]  # ties with the k-th value stay
    # min-p in log space: exp(s_i - s_max) >= min_p; top-k kept the max, so the order does not matter
    s32 = s.float()
    floor = s32.max(dim=-1, keepdim=True).values + min_p.float().log()[:, None]  # (B, 1); -inf when min_p = 0
    return keep & (s32 >= floor)


def filter_logits(logits, temperature, top_k, min_p, *, order="temp-first"):
    z = logits / temperature[:, None]  # (B, V): (B,) -> (B, 1), one temperature per row
    keep = _keep(z if order == "temp-first" else logits, top_k, min_p)
    return z.masked_fill(~keep, float("-inf"))  # (B, V) in the logits' dtype


# ------------------------------------------------------------------ inputs


def _ratios(s):
    """exp(s_i - max s) in float64 for a float64 row: each entry's probability over the top one."""
    return torch.exp(s - s.max())


def _clear(ratios, min_p, margin):
    """No ratio within `margin` (relative) of the threshold min_p, and no probability within it of
    min_p itself (so the absolute-threshold reading is as clear-cut as the right one)."""
    if min_p == 0.0:
        return True
    rel = (ratios / min_p - 1.0).abs()
    probs = ratios / ratios.sum()
    return bool((rel >= margin).all()) and bool(((probs / min_p - 1.0).abs() >= margin).all())


def _routes(row, t, dtype):
    """The scores a solution may filter, for both orders: the logits as given, z = logits / t in
    float64 and z rounded to the case dtype (and to float32), each as float64."""
    l64 = row.double()
    z = [l64 / t, (row / row.new_tensor(t)).double(), (row.float() / float(t)).double()]
    return [l64], z


def _pick_min_p(ctx, row, t, dtype, order, margin, below=None):
    """A min_p in (0, 1), rounded to the case dtype, whose threshold falls clearly between two of the
    row's probabilities under both orders (temp-first and temp-last) however the scores are computed,
    or 0.0 (off) when no gap of the row allows it. `below`: only thresholds below that ratio of the
    variant's own scores. Bounded: one try per gap of the row."""
    own = (row.double() / t) if order == "temp-first" else row.double()
    r = torch.unique(_ratios(own), sorted=True).flip(0)  # distinct ratios, descending, r[0] = 1
    gaps = [(float(r[i]), float(r[i + 1])) for i in range(len(r) - 1)]
    if below is not None:
        gaps = [g for g in gaps if g[0] <= below]
    gaps = [g for g in gaps if g[1] > 1e-6]  # a threshold that is not vanishingly small
    ctx.rng.shuffle(gaps)
    gaps.sort(key=lambda g: g[1] / g[0])  # the widest gaps (smallest lo/hi) first, shuffled among equals
    raw, temp_first = _routes(row, t, dtype)
    for hi, lo in gaps[:12]:
        m = float(torch.tensor(math.sqrt(hi * lo), dtype=torch.float64).to(dtype))  # geometric middle, in dtype
        if not 0.0 < m < 1.0:
            continue
        if all(_clear(_ratios(s), m, margin) for s in raw + temp_first):
            return m
    return 0.0


def _distinct_row(ctx, V, step):
    """V distinct logits on a grid of `step` (exact in fp16), in random order, centred near 0."""
    levels = torch.randperm(2 * V, generator=ctx.gen)[:V].double()
    return (levels - V) * step


def _tied_row(ctx, V, k):
    """Integer logits with the k-th largest value repeated right after it (a tie at the k-th value):
    exact in fp16, and keeping exactly k entries must drop one of the tied ones."""
    row = _distinct_row(ctx, V, 1.0)
    order = row.argsort(descending=True)
    n_tied = 1 + int(ctx.rng.random() < 0.5 and k + 1 < V)  # one or two more copies of the k-th value
    for j in range(1, n_tied + 1):
        if k - 1 + j < V:  # a row of one token (the smallest-case search) has nothing to tie with
            row[order[k - 1 + j]] = row[order[k - 1]]
    return row


def make_inputs(ctx, *, order="temp-first"):
    """One row at a time; params: style (mixed, ties, off, min-p-only, top-k-only), temperature (a
    value for every row, else drawn per row from [0.25, 0.8] and [1.25, 2] away from 1)."""
    B, V = ctx.sizes["B"], ctx.sizes["V"]
    style = str(ctx.params.get("style", "mixed"))
    fixed_t = ctx.params.get("temperature")
    dt = ctx.dtype
    margin = 2e-2 if dt == torch.float16 else 5e-3
    rows, temps, ks, mps = [], [], [], []
    for b in range(B):
        if fixed_t is not None:
            t = float(fixed_t)
        else:
            t = ctx.rng.uniform(0.25, 0.8) if ctx.rng.random() < 0.5 else ctx.rng.uniform(1.25, 2.0)
        t = float(torch.tensor(t, dtype=torch.float64).to(dt))  # the temperature as the case dtype holds it
        k = ctx.rng.randint(1, max(1, V - 1))
        if style == "ties":
            row = _tied_row(ctx, V, k)
        else:
            row = _distinct_row(ctx, V, 0.125)
        row = row.to(dt)
        if style == "off":
            k = [0, V][b % 2]
        elif style == "min-p-only":
            k = 0
        if style in ("off", "top-k-only") or (style == "ties" and b % 2 == 0):
            m = 0.0
        elif style == "ties":
            kth = float(_ratios(row.double() / t if order == "temp-first" else row.double()).sort(descending=True)
                        .values[k - 1])
            m = _pick_min_p(ctx, row, t, dt, order, margin, below=kth * 0.999)
        else:
            m = _pick_min_p(ctx, row, t, dt, order, margin)
        rows.append(row)
        temps.append(t)
        ks.append(k)
        mps.append(m)
    return {"logits": torch.stack(rows), "temperature": torch.tensor(temps, dtype=dt),
            "top_k": torch.tensor(ks, dtype=torch.int64), "min_p": torch.tensor(mps, dtype=dt)}


# ------------------------------------------------------------------ traps


def trap_unreshaped(logits, temperature, top_k, min_p, *, order="temp-first"):
    """The (B,) parameters used as they come: (B, V) / (B,) lines the temperatures up with V."""
    z = logits / temperature  # an error unless B == V (or B == 1)
    V = z.shape[-1]
    s = z if order == "temp-first" else logits
    desc = s.sort(dim=-1, descending=True).values
    kth = desc.gather(-1, (top_k.clamp(1, V) - 1)[:, None])
    keep = (s >= kth) | (top_k == 0)[:, None]
    floor = s.float().max(dim=-1, keepdim=True).values + min_p.float().log()
    return z.masked_fill(~(keep & (s.float() >= floor)), float("-inf"))


def trap_exact_k(logits, temperature, top_k, min_p, *, order="temp-first"):
    """Exactly k entries per row, torch.topk's k indices: a tie at the k-th value is broken by whichever
    tied entries topk happens to return (the contract's wording of the trap; a row at a time, as the
    per-request code that makes this mistake reads)."""
    z = logits / temperature[:, None]
    s = z if order == "temp-first" else logits
    keep = torch.zeros_like(s, dtype=torch.bool)
    for b, k in enumerate(top_k.tolist()):
        if k == 0:
            keep[b] = True
        else:
            keep[b, torch.topk(s[b], k).indices] = True
    floor = s.float().max(dim=-1, keepdim=True).values + min_p.float().log()[:, None]
    return z.masked_fill(~(keep & (s.float() >= floor)), float("-inf"))


def trap_absolute_min_p(logits, temperature, top_k, min_p, *, order="temp-first"):
    """min_p read as an absolute probability floor: softmax(z)_i >= min_p, not min_p * the top one."""
    z = logits / temperature[:, None]
    s = z if order == "temp-first" else logits
    keep = _keep(s, top_k, torch.zeros_like(min_p))  # top-k alone
    probs = torch.softmax(s.float(), dim=-1)
    return z.masked_fill(~(keep & (probs >= min_p.float()[:, None])), float("-inf"))


def trap_min_p_unscaled(logits, temperature, top_k, min_p):
    """llama.cpp's order, min-p on the raw logits, where the contract applies the temperature first."""
    return filter_logits(logits, temperature, top_k, min_p, order="temp-last")


def trap_temp_first(logits, temperature, top_k, min_p):
    """The contract's order (temperature first) where this variant filters the raw logits."""
    return filter_logits(logits, temperature, top_k, min_p)


# ------------------------------------------------------------------ matchers


def match_exact_k(call, got, trap_out):
    """Exactly the trap's number of survivors per row, every one of them a survivor of the right answer
    with its value, and every entry dropped against the right answer tied with the k-th value: exactly
    k kept, whichever of the tied entries the solution's sort or topk happened to keep."""
    exp = call.expected
    if not (isinstance(got, torch.Tensor) and got.shape == exp.shape and got.is_floating_point()):
        return False
    g, e, t = got.double(), exp.double(), trap_out.double()
    g_keep, e_keep = torch.isfinite(g), torch.isfinite(e)
    if bool((g_keep & ~e_keep).any()) or bool(torch.isnan(g).any()):
        return False
    if not torch.equal(g_keep.sum(-1), torch.isfinite(t).sum(-1)):
        return False
    fin = g_keep
    if not bool(((g - e).abs()[fin] <= 1e-2 * (1 + e.abs()[fin])).all()):
        return False
    if torch.equal(g_keep, e_keep):
        return False  # nothing dropped: not this mistake
    for b in range(e.shape[0]):
        dropped = e_keep[b] & ~g_keep[b]
        if bool(dropped.any()):
            lowest_kept = e[b][g_keep[b]].min()
            if not bool((e[b][dropped] == lowest_kept).all()):
                return False
    return True
