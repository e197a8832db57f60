"""Reference, loop oracle, point builder and traps for scattering point features onto a BEV grid."""
import torch


def bev_scatter(points, feats, lo: float, hi: float, res: float):
    N, C = feats.shape
    X = Y = round((hi - lo) / res)  # round, not int(): (0.35 - -0.35) / 0.1 = 6.999999999999999
    ix = torch.floor((points[:, 0] - lo) / res).long()  # floor, not .long(): -0.3 must become -1
    iy = torch.floor((points[:, 1] - lo) / res).long()
    valid = (ix >= 0) & (ix < X) & (iy >= 0) & (iy < Y)  # before any indexing: -1 would wrap
    flat = ix[valid] * Y + iy[valid]  # (N_valid,)
    bev = torch.zeros(C, X * Y, dtype=feats.dtype, device=feats.device)
    bev.index_add_(1, flat, feats[valid].T)  # sums when several points share a cell
    return bev.reshape(C, X, Y)


def bev_loop(points, feats, lo: float, hi: float, res: float):
    """The oracle: one point at a time, in float64."""
    import math

    X = Y = round((hi - lo) / res)
    out = torch.zeros(feats.shape[1], X, Y, dtype=torch.float64)
    for p in range(points.shape[0]):
        x, y = float(points[p, 0]), float(points[p, 1])
        if lo <= x < hi and lo <= y < hi:
            i, j = math.floor((x - lo) / res), math.floor((y - lo) / res)
            if 0 <= i < X and 0 <= j < Y:
                out[:, i, j] += feats[p].double()
    return out


# ------------------------------------------------------------------ inputs

def _coord(ctx, lo, res, cell, quantized):
    """A coordinate inside grid cell `cell` (may be negative or past the end), well away from its edges."""
    if quantized:  # k/16 of a cell: exact in fp16 on the fp16 grids
        f = ctx.rng.randint(1, 15) / 16
    else:
        f = ctx.rng.uniform(0.06, 0.94)
    return lo + (cell + f) * res


def make_points(ctx):
    lo, hi, res = float(ctx.params["lo"]), float(ctx.params["hi"]), float(ctx.params["res"])
    X = round((hi - lo) / res)
    if ctx.sizes["X"] != ctx.case.dims.get("X", X):  # sizes not the case's own: the scale check's (fake tensors),
        X = ctx.sizes["X"]  # which needs the grid's floats and the tensors' shapes, not a million coordinates
        shape = {"dtype": ctx.dtype}
        return {"points": torch.zeros(ctx.sizes["N"], 3, **shape), "feats": torch.zeros(ctx.sizes["N"], ctx.sizes["C"], **shape),
                "lo": lo, "hi": lo + X * res, "res": res}
    if X != ctx.sizes["X"] or X != ctx.sizes["Y"]:
        raise ValueError(f"case {ctx.case.name}: dims X, Y must be round((hi - lo) / res) = {X}")
    N, C = ctx.sizes["N"], ctx.sizes["C"]
    mix = ctx.params.get("mix", [])
    quantized = ctx.dtype == torch.float16
    rng = ctx.rng
    kinds = []
    if "crowd" in mix:
        kinds += ["crowd"] * max(8, N // 4)
    for kind in ("below", "below-y", "far-below", "beyond"):
        if kind in mix:
            kinds += [kind] * max(3, N // 8)
    kinds = kinds[:N]
    kinds += ["inside"] * (N - len(kinds))
    rng.shuffle(kinds)
    crowd_cell = (rng.randrange(X), rng.randrange(X))
    cells = []
    for kind in kinds:
        i, j = rng.randrange(X), rng.randrange(X)
        if kind == "crowd":
            i, j = crowd_cell
        elif kind == "below":  # just below lo: one of the two coordinates lands in cell -1
            side = rng.choice(["x", "y", "xy"])
            i, j = (-1 if "x" in side else i), (-1 if "y" in side else j)
        elif kind == "below-y":  # just below lo in y only, never in the first row of cells
            i, j = rng.randrange(1, X), -1
        elif kind == "far-below":
            side = rng.choice(["x", "y"])
            far = -rng.randint(2, 4)
            i, j = (far if side == "x" else i), (far if side == "y" else j)
        elif kind == "beyond":
            side = rng.choice(["x", "y", "xy"])
            i = X + rng.randint(0, 3) if "x" in side else i
            j = X + rng.randint(0, 3) if "y" in side else j
        cells.append((i, j))
    pts = torch.tensor(
        [[_coord(ctx, lo, res, i, quantized), _coord(ctx, lo, res, j, quantized), rng.uniform(-2.0, 2.0)] for i, j in cells],
        dtype=torch.float64,
    ).to(ctx.dtype)
    # every coordinate keeps at least 5% of a cell from a cell edge after the cast
    t = (pts[:, :2].double() - lo) / res
    frac = t - torch.floor(t)
    if bool(((frac < 0.05) | (frac > 0.95)).any()):
        raise ValueError(f"case {ctx.case.name}: a generated point sits on a cell edge")
    feats = torch.randint(-64, 65, (N, C), generator=ctx.gen).double() / 64  # sums exact even in fp16
    return {"points": pts, "feats": feats.to(ctx.dtype), "lo": lo, "hi": hi, "res": res}


# ------------------------------------------------------------------- traps

def _cells(points, lo, res, trunc=False):
    t = (points[:, :2] - lo) / res
    idx = t.long() if trunc else torch.floor(t).long()
    return idx[:, 0], idx[:, 1]


def _flat_no_mask(points, feats, lo, hi, res, trunc):
    X = round((hi - lo) / res)
    ix, iy = _cells(points, lo, res, trunc)
    bev = torch.zeros(feats.shape[1], X * X, dtype=feats.dtype, device=feats.device)
    bev.index_add_(1, ix * X + iy, feats.T)  # a negative flat index raises; iy = -1 wraps to the row before
    return bev.reshape(-1, X, X)


def trap_no_validity_mask(points, feats, lo: float, hi: float, res: float):
    return _flat_no_mask(points, feats, lo, hi, res, trunc=False)


def trap_no_mask_truncated(points, feats, lo: float, hi: float, res: float):
    return _flat_no_mask(points, feats, lo, hi, res, trunc=True)  # the seed's code without its mask line


def trap_no_mask_wraps(points, feats, lo: float, hi: float, res: float):
    X = round((hi - lo) / res)
    ix, iy = _cells(points, lo, res)
    bev = torch.zeros(feats.shape[1], X, X, dtype=feats.dtype, device=feats.device)
    c = torch.arange(feats.shape[1], device=feats.device)[:, None].expand(-1, len(ix))
    # advanced indexing: -1 wraps to the far edge, an index past the end raises IndexError
    bev.index_put_((c, ix.expand_as(c), iy.expand_as(c)), feats.T, accumulate=True)
    return bev


def trap_truncate_toward_zero(points, feats, lo: float, hi: float, res: float):
    X = round((hi - lo) / res)
    ix, iy = _cells(points, lo, res, trunc=True)  # .long() truncates: -0.3 -> 0, so the point is kept
    valid = (ix >= 0) & (ix < X) & (iy >= 0) & (iy < X)
    bev = torch.zeros(feats.shape[1], X * X, dtype=feats.dtype, device=feats.device)
    bev.index_add_(1, ix[valid] * X + iy[valid], feats[valid].T)
    return bev.reshape(-1, X, X)


def trap_assign_not_accumulate(points, feats, lo: float, hi: float, res: float):
    X = round((hi - lo) / res)
    ix, iy = _cells(points, lo, res)
    valid = (ix >= 0) & (ix < X) & (iy >= 0) & (iy < X)
    bev = torch.zeros(feats.shape[1], X, X, dtype=feats.dtype, device=feats.device)
    bev[:, ix[valid], iy[valid]] = feats[valid].T  # one point per cell survives
    return bev


def trap_grid_size_truncated(points, feats, lo: float, hi: float, res: float):
    X = int((hi - lo) / res)  # 6 for lo = -0.35, hi = 0.35, res = 0.1
    ix, iy = _cells(points, lo, res)
    valid = (ix >= 0) & (ix < X) & (iy >= 0) & (iy < X)
    bev = torch.zeros(feats.shape[1], X * X, dtype=feats.dtype, device=feats.device)
    bev.index_add_(1, ix[valid] * X + iy[valid], feats[valid].T)
    return bev.reshape(-1, X, X)


def trap_axes_swapped(points, feats, lo: float, hi: float, res: float):
    X = round((hi - lo) / res)
    ix, iy = _cells(points, lo, res)
    valid = (ix >= 0) & (ix < X) & (iy >= 0) & (iy < X)
    bev = torch.zeros(feats.shape[1], X * X, dtype=feats.dtype, device=feats.device)
    bev.index_add_(1, iy[valid] * X + ix[valid], feats[valid].T)  # (C, Y, X)
    return bev.reshape(-1, X, X)
