"""Reference and traps for top-p (nucleus) filtering.

Every function takes the variant keywords (drills/README.md, "Variants"): `given`, what probs
holds (probs: probabilities, the contract; logits: raw scores, softmaxed first as Hugging Face's
TopPLogitsWarper softmaxes its scores), and `min_keep`, the fewest tokens a row keeps (1, the
contract; 2, Hugging Face's min_tokens_to_keep under beam search). The defaults are the contract."""
import torch


def _dist(probs, given):
    """The rows as probability distributions: probs itself, or the softmax of logits."""
    return probs if given == "probs" else torch.softmax(probs, dim=-1)


def _keep_top(drop, min_keep):
    """Never drop the first min_keep sorted positions."""
    if min_keep > 1:
        drop = drop.clone()
        drop[..., :min_keep] = False
    return drop


def top_p_filter(probs, p, *, given="probs", min_keep=1):
    probs = _dist(probs, given)  # (B, V) distributions
    sorted_p, idx = torch.sort(probs, dim=-1, descending=True)  # (B, V) each
    cum = torch.cumsum(sorted_p, dim=-1)  # (B, V)
    drop = _keep_top(cum - sorted_p >= p, min_keep)  # mass strictly before the token already reaches p
    sorted_p = sorted_p.masked_fill(drop, 0.0)  # (B, V)
    out = torch.zeros_like(probs).scatter(-1, idx, sorted_p)  # back to vocabulary order
    return out / out.sum(-1, keepdim=True)  # (B, V)


def _keep_sets(x, p, given="probs"):
    """Kept token sets from several honest ways of computing them, in the row's dtype and above."""
    sets = []
    for dt in {x.dtype, torch.float32, torch.float64}:
        r = _dist(x.to(dt), given)
        for normalize in (False, True):
            y = r / r.sum() if normalize else r
            s, i = torch.sort(y, descending=True)
            c = torch.cumsum(s, 0)
            before = torch.cat([torch.zeros(1, dtype=dt), c[:-1]])
            for keep in (c - s < p, before < p):
                sets.append(frozenset(i[keep].tolist()))
    return sets


def make_probs(ctx, shape, dtype, scale=1.5, peaked_rows=0, logits=False):
    """Rows of a softmax with no ties in the case dtype, every partial sum at
    least 1e-3 away from p, and the same kept set however the cumsum is done.
    The first `peaked_rows` rows have a top token that alone exceeds p. With
    `logits`, the rows are the logits themselves (in the case dtype), and the
    checks hold for their softmax, whichever dtype it is taken in."""
    p = float(ctx.params["p"])
    given = "logits" if logits else "probs"
    B, V = shape
    rows = []
    for b in range(B):
        for _ in range(500):
            logit = torch.randn(V, generator=ctx.gen, dtype=torch.float64) * scale
            if b < peaked_rows:
                top = int(torch.argmax(logit))
                logit[top] += 3.0 + 6.0 * p  # push the top token's mass above p
            row = logit.to(dtype) if logits else torch.softmax(logit, 0).to(dtype)
            dist = _dist(row, given)  # the distribution in the case dtype
            if torch.unique(row).numel() != V or torch.unique(dist).numel() != V or bool((dist <= 0).any()):
                continue
            s = torch.sort(_dist(row.double(), given), descending=True).values
            cum = torch.cumsum(s, 0)
            if bool(((cum - p).abs() < 1e-3).any()):
                continue
            if b < peaked_rows and not float(s[0]) > p + 1e-3:
                continue
            if len(set(_keep_sets(row, p, given))) != 1:
                continue
            rows.append(row)
            break
        else:
            raise ValueError(f"make_probs: no acceptable row for p={p}, V={V}, dtype={dtype}")
    return torch.stack(rows)


def trap_cum_gt_p(probs, p, *, given="probs", min_keep=1):
    probs = _dist(probs, given)
    sorted_p, idx = torch.sort(probs, dim=-1, descending=True)
    cum = torch.cumsum(sorted_p, dim=-1)
    sorted_p = sorted_p.masked_fill(_keep_top(cum > p, min_keep), 0.0)  # drops the token that crosses p
    out = torch.zeros_like(probs).scatter(-1, idx, sorted_p)
    return out / out.sum(-1, keepdim=True)


def trap_no_scatter(probs, p, *, given="probs", min_keep=1):
    probs = _dist(probs, given)
    sorted_p, idx = torch.sort(probs, dim=-1, descending=True)
    cum = torch.cumsum(sorted_p, dim=-1)
    sorted_p = sorted_p.masked_fill(_keep_top(cum - sorted_p >= p, min_keep), 0.0)
    return sorted_p / sorted_p.sum(-1, keepdim=True)  # still in sorted order


def trap_no_renorm(probs, p, *, given="probs", min_keep=1):
    probs = _dist(probs, given)
    sorted_p, idx = torch.sort(probs, dim=-1, descending=True)
    cum = torch.cumsum(sorted_p, dim=-1)
    sorted_p = sorted_p.masked_fill(_keep_top(cum - sorted_p >= p, min_keep), 0.0)
    return torch.zeros_like(probs).scatter(-1, idx, sorted_p)


def trap_ascending(probs, p, *, given="probs", min_keep=1):
    probs = _dist(probs, given)
    sorted_p, idx = torch.sort(probs, dim=-1)  # ascending: the smallest tokens first
    cum = torch.cumsum(sorted_p, dim=-1)
    sorted_p = sorted_p.masked_fill(_keep_top(cum - sorted_p >= p, min_keep), 0.0)
    out = torch.zeros_like(probs).scatter(-1, idx, sorted_p)
    return out / out.sum(-1, keepdim=True)


def trap_gather_not_scatter(probs, p, *, given="probs", min_keep=1):
    probs = _dist(probs, given)
    sorted_p, idx = torch.sort(probs, dim=-1, descending=True)
    cum = torch.cumsum(sorted_p, dim=-1)
    sorted_p = sorted_p.masked_fill(_keep_top(cum - sorted_p >= p, min_keep), 0.0)
    out = sorted_p.gather(-1, idx)  # gather applies the permutation again instead of undoing it
    return out / out.sum(-1, keepdim=True)


def trap_logits_as_probs(probs, p, *, min_keep=1):
    """The contract's answer on logits: sorting and summing raw scores as if they were probabilities."""
    return top_p_filter(probs, p, min_keep=min_keep)


def trap_keep_one(probs, p, *, given="probs"):
    """The contract's answer, where the variant keeps at least two tokens per row."""
    return top_p_filter(probs, p, given=given)
