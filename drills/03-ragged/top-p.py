"""Reference and traps for top-p (nucleus) filtering."""
import torch


def top_p_filter(probs, p):
    sorted_p, idx = torch.sort(probs, dim=-1, descending=True)  # (B, V) each
    cum = torch.cumsum(sorted_p, dim=-1)  # (B, V)
    drop = cum - sorted_p >= p  # mass strictly before the token already reaches p
    sorted_p = sorted_p.masked_fill(drop, 0.0)  # (B, V)
    out = torch.zeros_like(probs).scatter(-1, idx, sorted_p)  # back to vocabulary order
    return out / out.sum(-1, keepdim=True)  # (B, V)


def _keep_sets(row, p):
    """Kept token sets from several honest ways of computing them, in the row's dtype and above."""
    sets = []
    for dt in {row.dtype, torch.float32, torch.float64}:
        r = row.to(dt)
        for normalize in (False, True):
            x = r / r.sum() if normalize else r
            s, i = torch.sort(x, descending=True)
            c = torch.cumsum(s, 0)
            before = torch.cat([torch.zeros(1, dtype=dt), c[:-1]])
            for keep in (c - s < p, before < p):
                sets.append(frozenset(i[keep].tolist()))
    return sets


def make_probs(ctx, shape, dtype, scale=1.5, peaked_rows=0):
    """Rows of a softmax with no ties in the case dtype, every partial sum at
    least 1e-3 away from p, and the same kept set however the cumsum is done.
    The first `peaked_rows` rows have a top token that alone exceeds p."""
    p = float(ctx.params["p"])
    B, V = shape
    rows = []
    for b in range(B):
        for _ in range(500):
            logits = torch.randn(V, generator=ctx.gen, dtype=torch.float64) * scale
            if b < peaked_rows:
                top = int(torch.argmax(logits))
                logits[top] += 3.0 + 6.0 * p  # push the top token's mass above p
            row = torch.softmax(logits, 0).to(dtype)
            if torch.unique(row).numel() != V or bool((row <= 0).any()):
                continue
            s = torch.sort(row.double(), descending=True).values
            cum = torch.cumsum(s, 0)
            if bool(((cum - p).abs() < 1e-3).any()):
                continue
            if b < peaked_rows and not float(s[0]) > p + 1e-3:
                continue
            if len(set(_keep_sets(row, p))) != 1:
                continue
            rows.append(row)
            break
        else:
            raise ValueError(f"make_probs: no acceptable row for p={p}, V={V}, dtype={dtype}")
    return torch.stack(rows)


def trap_cum_gt_p(probs, p):
    sorted_p, idx = torch.sort(probs, dim=-1, descending=True)
    cum = torch.cumsum(sorted_p, dim=-1)
    sorted_p = sorted_p.masked_fill(cum > p, 0.0)  # drops the token that crosses p
    out = torch.zeros_like(probs).scatter(-1, idx, sorted_p)
    return out / out.sum(-1, keepdim=True)


def trap_no_scatter(probs, p):
    sorted_p, idx = torch.sort(probs, dim=-1, descending=True)
    cum = torch.cumsum(sorted_p, dim=-1)
    sorted_p = sorted_p.masked_fill(cum - sorted_p >= p, 0.0)
    return sorted_p / sorted_p.sum(-1, keepdim=True)  # still in sorted order


def trap_no_renorm(probs, p):
    sorted_p, idx = torch.sort(probs, dim=-1, descending=True)
    cum = torch.cumsum(sorted_p, dim=-1)
    sorted_p = sorted_p.masked_fill(cum - sorted_p >= p, 0.0)
    return torch.zeros_like(probs).scatter(-1, idx, sorted_p)


def trap_ascending(probs, p):
    sorted_p, idx = torch.sort(probs, dim=-1)  # ascending: the smallest tokens first
    cum = torch.cumsum(sorted_p, dim=-1)
    sorted_p = sorted_p.masked_fill(cum - sorted_p >= p, 0.0)
    out = torch.zeros_like(probs).scatter(-1, idx, sorted_p)
    return out / out.sum(-1, keepdim=True)


def trap_gather_not_scatter(probs, p):
    sorted_p, idx = torch.sort(probs, dim=-1, descending=True)
    cum = torch.cumsum(sorted_p, dim=-1)
    sorted_p = sorted_p.masked_fill(cum - sorted_p >= p, 0.0)
    out = sorted_p.gather(-1, idx)  # gather applies the permutation again instead of undoing it
    return out / out.sum(-1, keepdim=True)
