"""Reference, inputs, checker and traps for pairwise-sqdist.

Every function takes the variant keyword (drills/README.md, "Variants"): `points` is rows for
A (N, d) and B (M, d), one point per row (the contract), or columns for A (d, N) and B (d, M),
one point per column, as a point cloud laid out channels first for Conv1d. The default is the
contract; the traps turn column points into rows first, then make their mistake."""
import torch

from grader.judge.compare import Tolerance, compare_value

# per-dtype (atol, rtol, c): |got - want| <= atol + rtol * |want| + c * (|a_i|^2 + |b_j|^2)
_TOL = {torch.float32: (1e-5, 1e-4, 1e-5), torch.float16: (2e-3, 1e-2, 4e-3), torch.float64: (1e-10, 1e-8, 1e-12)}


def _rows(A, B, points):
    """A and B with one point per row."""
    return (A.T, B.T) if points == "columns" else (A, B)


def pairwise_sq_dists(A, B, *, points="rows"):
    A, B = _rows(A, B, points)  # (N, d), (M, d)
    a2 = (A * A).sum(1, keepdim=True)  # (N, 1)
    b2 = (B * B).sum(1)  # (M,)
    d2 = a2 - 2.0 * (A @ B.T) + b2  # (N, 1) + (N, M) + (M,) -> (N, M)
    return d2.clamp_min(0)  # cancellation can leave tiny negatives


_sqdist = pairwise_sq_dists  # for the traps (a trap file rebinds pairwise_sq_dists)


# ----------------------------------------------------------------- inputs


def _laid_out(x, points):
    """Points drawn as rows, laid out as the variant has them (a contiguous (d, n) for columns)."""
    return x.T.contiguous() if points == "columns" else x


def points_a(ctx, shape, dtype, scale=1.0, offset=0.0, points="rows"):
    """Points around a common offset vector (the same one B uses): far from the origin when offset is large."""
    n, d = shape if points == "rows" else shape[::-1]
    centre = torch.randn(d, generator=ctx.gen, dtype=torch.float32).abs() * offset + offset
    ctx.shared["centre"] = centre
    x = torch.randn((n, d), generator=ctx.gen, dtype=torch.float32) * scale + centre
    return _laid_out(x.to(dtype), points)


def points_b(ctx, shape, dtype, scale=1.0, offset=0.0, shared_rows=0, points="rows"):
    """Points around the same centre; `shared_rows` of them are exact copies of points of A, in random places."""
    m, d = shape if points == "rows" else shape[::-1]
    centre = ctx.shared.get("centre")
    if centre is None:
        centre = torch.full((d,), float(offset))
    x = (torch.randn((m, d), generator=ctx.gen, dtype=torch.float32) * scale + centre).to(dtype)
    if shared_rows:
        A = ctx.args["A"] if points == "rows" else ctx.args["A"].T
        k = min(int(shared_rows), m, A.shape[0])
        dst = torch.randperm(m, generator=ctx.gen)[:k]
        src = torch.randperm(A.shape[0], generator=ctx.gen)[:k]
        x[dst] = A[src]
    return _laid_out(x, points)


# ---------------------------------------------------------------- checking


def _limit(call, want):
    A, B = call.args
    if tuple(call.function.args[0].shape) == ("d", "N"):  # points as columns (the variant's shapes)
        A, B = A.T, B.T
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


def trap_naive_broadcast(A, B, *, points="rows"):
    """Correct values through an (N, M, d) intermediate: N*M*d floats."""
    A, B = _rows(A, B, points)
    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)


def trap_no_clamp(A, B, *, points="rows"):
    A, B = _rows(A, B, points)
    a2 = (A * A).sum(1, keepdim=True)
    b2 = (B * B).sum(1)
    return a2 - 2.0 * (A @ B.T) + b2


def trap_no_keepdim(A, B, *, points="rows"):
    """(N,) - (N, M): right-aligned, N meets M, an error unless N == M."""
    A, B = _rows(A, B, points)
    a2 = (A * A).sum(1)
    b2 = (B * B).sum(1)
    return (a2 - 2.0 * (A @ B.T) + b2).clamp_min(0)


def trap_missing_factor_2(A, B, *, points="rows"):
    A, B = _rows(A, B, points)
    a2 = (A * A).sum(1, keepdim=True)
    b2 = (B * B).sum(1)
    return (a2 - A @ B.T + b2).clamp_min(0)


def trap_distances(A, B, *, points="rows"):
    """Takes the square root: Euclidean distances, not squared ones."""
    return _sqdist(A, B, points=points).sqrt()


def trap_transposed(A, B, *, points="rows"):
    """Distances from every point of B to every point of A: (M, N)."""
    return _sqdist(B, A, points=points)


def trap_points_as_rows(A, B):
    """Column points read as rows: A @ B.T multiplies (d, N) by (M, d), which raises unless N == M."""
    return _sqdist(A, B)
