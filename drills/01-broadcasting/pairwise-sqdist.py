"""Reference, inputs, checker and traps for pairwise-sqdist."""
import torch

from grader.judge.compare import Tolerance, compare_value

# per-dtype (atol, rtol, c): |got - want| <= atol + rtol * |want| + c * (|a_i|^2 + |b_j|^2)
_TOL = {torch.float32: (1e-5, 1e-4, 1e-5), torch.float16: (2e-3, 1e-2, 4e-3), torch.float64: (1e-10, 1e-8, 1e-12)}


def pairwise_sq_dists(A, B):
    a2 = (A * A).sum(1, keepdim=True)  # (N, 1)
    b2 = (B * B).sum(1)  # (M,)
    d2 = a2 - 2.0 * (A @ B.T) + b2  # (N, 1) + (N, M) + (M,) -> (N, M)
    return d2.clamp_min(0)  # cancellation can leave tiny negatives


_sqdist = pairwise_sq_dists  # for the traps (a trap file rebinds pairwise_sq_dists)


# ----------------------------------------------------------------- inputs


def points_a(ctx, shape, dtype, scale=1.0, offset=0.0):
    """Rows around a common offset vector (the same one B uses): far from the origin when offset is large."""
    n, d = shape
    centre = torch.randn(d, generator=ctx.gen, dtype=torch.float32).abs() * offset + offset
    ctx.shared["centre"] = centre
    x = torch.randn(shape, generator=ctx.gen, dtype=torch.float32) * scale + centre
    return x.to(dtype)


def points_b(ctx, shape, dtype, scale=1.0, offset=0.0, shared_rows=0):
    """Rows around the same centre; `shared_rows` of them are exact copies of rows of A, in random places."""
    m, d = shape
    centre = ctx.shared.get("centre")
    if centre is None:
        centre = torch.full((d,), float(offset))
    x = (torch.randn(shape, generator=ctx.gen, dtype=torch.float32) * scale + centre).to(dtype)
    if shared_rows:
        A = ctx.args["A"]
        k = min(int(shared_rows), m, A.shape[0])
        dst = torch.randperm(m, generator=ctx.gen)[:k]
        src = torch.randperm(A.shape[0], generator=ctx.gen)[:k]
        x[dst] = A[src]
    return x


# ---------------------------------------------------------------- checking


def _limit(call, want):
    A, B = call.args
    atol, rtol, c = _TOL.get(call.dtype, _TOL[torch.float32])
    norms = (A.double() ** 2).sum(1)[:, None] + (B.double() ** 2).sum(1)[None, :]  # (N, M)
    return atol + rtol * want.abs() + c * norms


def check_sqdist(call, got):
    """Shape, dtype, then values within a tolerance that grows with |a|^2 + |b|^2, then every value >= 0."""
    ret = call.function.returns[0]
    first = compare_value(ret, call.expected, got, call, {str(call.dtype).replace("torch.", ""): Tolerance(float("inf"), 0.0)})
    if first.verdict != "pass":
        return first.message
    want = call.expected.double()
    g = got.double()
    if not bool(torch.isfinite(g).all()):
        bad = ~torch.isfinite(g)
        i, j = (int(v) for v in bad.nonzero()[0])
        return f"non-finite values at {int(bad.sum())} of {g.numel()} positions; first at [{i}, {j}]"
    err = (g - want).abs()
    over = err > _limit(call, want)
    if bool(over.any()):
        flat = int(torch.argmax(torch.where(over, err, torch.zeros_like(err))))
        i, j = divmod(flat, g.shape[1])
        return (f"values differ at {int(over.sum())} of {g.numel()} positions; worst at [{i}, {j}]: "
                f"expected {float(want[i, j]):.6g}, got {float(g[i, j]):.6g}")
    neg = got < 0
    if bool(neg.any()):
        i, j = (int(v) for v in neg.nonzero()[0])
        return (f"{int(neg.sum())} values are negative (smallest {float(got.min()):.3g}, first at [{i}, {j}]); "
                "a squared distance is >= 0 exactly")
    return None


def match_no_clamp(call, got, trap_out):
    """The person's result is right within tolerance except that some values are below 0."""
    if not isinstance(got, torch.Tensor) or not got.is_floating_point() or tuple(got.shape) != tuple(call.expected.shape):
        return False
    if not bool((got < 0).any()):
        return False
    return check_sqdist(call, got.clamp_min(0)) is None


# ------------------------------------------------------------------- traps


def trap_naive_broadcast(A, B):
    """Correct values through an (N, M, d) intermediate: N*M*d floats."""
    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)


def trap_no_clamp(A, B):
    a2 = (A * A).sum(1, keepdim=True)
    b2 = (B * B).sum(1)
    return a2 - 2.0 * (A @ B.T) + b2


def trap_no_keepdim(A, B):
    """(N,) - (N, M): right-aligned, N meets M, an error unless N == M."""
    a2 = (A * A).sum(1)
    b2 = (B * B).sum(1)
    return (a2 - 2.0 * (A @ B.T) + b2).clamp_min(0)


def trap_missing_factor_2(A, B):
    a2 = (A * A).sum(1, keepdim=True)
    b2 = (B * B).sum(1)
    return (a2 - A @ B.T + b2).clamp_min(0)


def trap_distances(A, B):
    """Takes the square root: Euclidean distances, not squared ones."""
    return _sqdist(A, B).sqrt()


def trap_transposed(A, B):
    """Distances from every row of B to every row of A: (M, N)."""
    return _sqdist(B, A)
