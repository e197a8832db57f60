"""Reference and traps for speculative-accept: the verification step of speculative decoding.

Every function takes the variant keyword (drills/README.md, "Variants"): `mode` says how a draft is
verified. sample (the contract; Leviathan et al. 2023, Hugging Face's _speculative_sampling, vLLM's
rejection sampler): draft i is accepted when u <= p(x_i) / q(x_i), and after the first rejection the
next token comes from the residual max(0, p - q), renormalised. greedy (vLLM's
rejection_greedy_sample_kernel): u is ignored, draft i is accepted while it is the target's argmax,
and the next token is the target's argmax, returned as a one-hot row. The defaults are the contract."""
import torch


def _accepted(draft_tokens, q, p, u, mode):
    """(B, K) bool: which drafts pass on their own (before the prefix rule)."""
    K = q.shape[1]
    x = draft_tokens[..., None]  # (B, K, 1)
    p_x = p[:, :K].gather(-1, x).squeeze(-1)  # (B, K): the target's probability of each draft
    if mode == "greedy":
        return draft_tokens == p[:, :K].argmax(dim=-1)
    q_x = q.gather(-1, x).squeeze(-1)  # (B, K): the draft model's, > 0
    return u <= p_x / q_x


def _row(t, n):
    """t[b, n[b]] for every b: (B, R, V) and (B,) -> (B, V)."""
    B, _, V = t.shape
    return t.gather(1, n[:, None, None].expand(B, 1, V)).squeeze(1)


def speculative_accept(draft_tokens, q, p, u, *, mode="sample"):
    B, K, V = q.shape
    ok = _accepted(draft_tokens, q, p, u, mode)
    n = ok.long().cumprod(dim=-1).sum(dim=-1)  # (B,): leading accepted drafts only
    p_n = _row(p, n)  # (B, V): the target at the first position not accepted (the bonus position when n == K)
    if mode == "greedy":
        return n, torch.zeros_like(p_n).scatter_(-1, p_n.argmax(dim=-1, keepdim=True), 1.0)
    q_n = _row(q, n.clamp(max=K - 1))  # (B, V); unused where n == K
    residual = (p_n - q_n).clamp_min(0)
    residual = residual / residual.sum(dim=-1, keepdim=True)  # NaN only where n == K, replaced below
    return n, torch.where((n == K)[:, None], p_n, residual)


# ------------------------------------------------------------------ inputs

MARGIN = 0.05  # u stays this far from p(x)/q(x) and from q(x)/p(x): wider than the contract's 1e-4 / 1e-2


def _softmax_row(ctx, V, scale=1.5):
    return torch.softmax(torch.randn(V, generator=ctx.gen, dtype=torch.float64) * scale, dim=0)


def _clear_top(row):
    """The top entry at least 1.2 times the second (a unique argmax in any dtype), renormalised."""
    if row.numel() < 2:
        return row
    two = row.topk(2).values
    if float(two[0]) < 1.2 * float(two[1]):
        row = row.clone()
        row[row.argmax()] = 1.2 * two[1]
        row = row / row.sum()
    return row


def _draw_u(ctx, intervals, avoid):
    """A uniform draw from the union of intervals, minus the bands of +-MARGIN around each value of avoid."""
    pieces = []
    for lo, hi in intervals:
        cuts = [(lo, hi)]
        for a in avoid:
            cuts = [c for lo2, hi2 in cuts for c in ((lo2, min(hi2, a - MARGIN)), (max(lo2, a + MARGIN), hi2))]
        pieces += [c for c in cuts if c[1] - c[0] > 1e-3]
    if not pieces:  # only at degenerate sizes (V = 1: every ratio is 1): any u
        return ctx.rng.random() * 0.999
    total = sum(hi - lo for lo, hi in pieces)
    t = ctx.rng.random() * total
    for lo, hi in pieces:
        if t <= hi - lo:
            return lo + t
        t -= hi - lo
    return pieces[-1][1]


def _plant(ctx, pr, qr, passes, style, mode):
    """The draft token for one position and the target row it is verified against (see make_inputs)."""
    V = pr.numel()
    if mode == "greedy":
        top = int(pr.argmax())
        return (top if passes else ctx.rng.choice([v for v in range(V) if v != top] or [top])), pr
    zero_ok = style == "p-zero" and not passes
    fair = [v for v in range(V) if 0.01 <= float(qr[v]) < 0.3]  # q neither tiny nor dominant
    if not fair:
        fair = [int((qr - 0.05).abs().argmin())]
    x = ctx.rng.choice([v for v in fair if (float(pr[v]) == 0.0) == zero_ok] or fair)
    if passes:
        ratio = ctx.rng.uniform(1.2, 2.5) if style == "above-1" else ctx.rng.uniform(0.35, 2.5)
    else:
        ratio = 0.0 if float(pr[x]) == 0.0 else ctx.rng.uniform(0.0, 0.7)
    target = min(ratio * float(qr[x]), 0.9)
    rest = pr.clone()
    rest[x] = 0.0
    if float(rest.sum()) > 0:  # a vocabulary of one token has nothing to plant
        pr = rest * ((1.0 - target) / float(rest.sum()))
        pr[x] = target
    return x, pr


def make_inputs(ctx, *, mode="sample"):
    """Per row, the number of drafts to accept n is chosen first and the drafts are planted to give it.
    sample: draft x_i gets a planted ratio p(x)/q(x) (p[x] set to ratio * q[x], the rest of p rescaled),
    in [0.35, 2.5] for a draft that passes and [0, 0.7] for one that fails; greedy: a passing draft is
    the target's argmax (unique: the top entry is 1.2 times the second), a failing one another token. u
    is drawn MARGIN away from p(x)/q(x) and q(x)/p(x), computed on the inputs as rounded to the case
    dtype. Drafts after the first failure pass or fail at random. params: style (mixed: rows with 0,
    some and all K accepted; all; none; pass-after-reject: the draft right after the rejection passes;
    above-1: passing drafts have ratios in [1.2, 2.5]; p-zero: p is 0 on a quarter of each row, where q
    is not, and in sample mode a failing draft sits on such a zero)."""
    B, K, V = ctx.sizes["B"], ctx.sizes["K"], ctx.sizes["V"]
    style = str(ctx.params.get("style", "mixed"))
    dt = ctx.dtype
    firsts = [0, K, ctx.rng.randint(1, max(1, K - 1))]
    ctx.rng.shuffle(firsts)
    P = torch.zeros(B, K + 1, V, dtype=torch.float64)
    Q = torch.zeros(B, K, V, dtype=torch.float64)
    X = torch.zeros(B, K, dtype=torch.int64)
    U = torch.zeros(B, K, dtype=torch.float64)
    for b in range(B):
        if style == "all":
            n = K
        elif style == "none":
            n = 0
        elif style == "pass-after-reject":
            n = ctx.rng.randint(0, K - 2) if K >= 2 else 0
        else:
            n = firsts[b] if b < 3 else ctx.rng.randint(0, K)
        p_rows = [_softmax_row(ctx, V) for _ in range(K + 1)]
        q_rows = [_softmax_row(ctx, V) for _ in range(K)]
        if style == "p-zero":
            for i, row in enumerate(p_rows):
                zero = torch.randperm(V, generator=ctx.gen)[: V // 4]
                zero = zero[zero != int(row.argmax())]
                row[zero] = 0.0
                p_rows[i] = row / row.sum()
        if mode == "greedy":
            p_rows = [_clear_top(r) for r in p_rows]
        plan = []
        for i in range(K):
            passes = i < n or (i > n and (ctx.rng.random() < 0.5 or (style == "pass-after-reject" and i == n + 1)))
            x, p_rows[i] = _plant(ctx, p_rows[i], q_rows[i], passes, style, mode)
            X[b, i] = x
            plan.append(passes)
        P[b] = torch.stack(p_rows)
        Q[b] = torch.stack(q_rows)
        Pd, Qd = P[b].to(dt).double(), Q[b].to(dt).double()  # as the solution sees them
        for i in range(K):
            x = int(X[b, i])
            r = float(Pd[i, x] / Qd[i, x])
            avoid = [r] + ([1.0 / r] if r > 0 else [])
            if mode == "greedy":  # u is ignored; kept clear of both ratios for the sampling reading
                U[b, i] = _draw_u(ctx, [(0.0, 0.999)], avoid)
            elif plan[i]:
                U[b, i] = _draw_u(ctx, [(0.0, min(r, 1.0) - MARGIN)], avoid[1:])
            else:
                U[b, i] = _draw_u(ctx, [(r + MARGIN, 0.999)], avoid[1:])
    return {"draft_tokens": X, "q": Q.to(dt), "p": P.to(dt), "u": U.to(dt)}


# ------------------------------------------------------------------ traps


def trap_q_over_p(draft_tokens, q, p, u, *, mode="sample"):
    """The ratio turned over: accepted when u <= q(x) / p(x), so drafts the target dislikes pass."""
    K = q.shape[1]
    x = draft_tokens[..., None]
    ok = u <= q.gather(-1, x).squeeze(-1) / p[:, :K].gather(-1, x).squeeze(-1)
    return _finish(ok.long().cumprod(-1).sum(-1), q, p)


def _finish(n, q, p, renorm=True):
    B, K, V = q.shape
    p_n = _row(p, n)
    residual = (p_n - _row(q, n.clamp(max=K - 1))).clamp_min(0)
    if renorm:
        residual = residual / residual.sum(dim=-1, keepdim=True)
    return n, torch.where((n == K)[:, None], p_n, residual)


def trap_no_renorm(draft_tokens, q, p, u, *, mode="sample"):
    """max(0, p - q) returned as it is: its mass is the total variation distance, not 1."""
    ok = _accepted(draft_tokens, q, p, u, mode)
    return _finish(ok.long().cumprod(-1).sum(-1), q, p, renorm=False)


def trap_every_accepted(draft_tokens, q, p, u, *, mode="sample"):
    """n counts every draft that passes its own test, even after a rejection."""
    ok = _accepted(draft_tokens, q, p, u, mode)
    n = ok.long().sum(-1)
    if mode == "greedy":
        p_n = _row(p, n)
        return n, torch.zeros_like(p_n).scatter_(-1, p_n.argmax(dim=-1, keepdim=True), 1.0)
    return _finish(n, q, p)


def trap_no_residual(draft_tokens, q, p, u, *, mode="sample"):
    """The next token drawn from the target p[b, n] itself, without taking the draft's q away."""
    ok = _accepted(draft_tokens, q, p, u, mode)
    return ok.long().cumprod(-1).sum(-1), _row(p, ok.long().cumprod(-1).sum(-1))


def trap_sample_rule(draft_tokens, q, p, u):
    """The contract's rejection sampling where this variant verifies greedily."""
    return speculative_accept(draft_tokens, q, p, u)
