"""Reference and traps for roi-align: torchvision's RoIAlign (aligned=False) by hand.

Every function takes the variant keyword (drills/README.md, "Variants"): `aligned` False is
torchvision.ops.roi_align's default and the contract (start = x1 * scale, size at least 1);
True is Detectron2's ROIAlign(aligned=True) (start = x1 * scale - 0.5, no minimum size).

The reference samples every roi at once when sampling_ratio > 0: the four bilinear corners are
gathered from the (B, H, W, C) view of the features, (M, Ph*gh, Pw*gw, C) each, and summed with
their weights, so its peak grows as M*C*Ph*Pw*gh*gw, flat in B, H and W (beyond the features
themselves). With sampling_ratio 0 the grid depends on each roi's size, so it loops over the rois."""
import math

import torch


def _rois(rois, spatial_scale, off, min1, ct):
    """(batch index, x1, y1, roi width, roi height) in the compute dtype: coordinates scaled, then shifted by
    -off; sizes at least 1 when min1 (aligned=False: off 0, min1; aligned=True: off 0.5, no minimum)."""
    r = rois.to(ct)
    x1, y1 = r[:, 1] * spatial_scale - off, r[:, 2] * spatial_scale - off
    w = r[:, 3] * spatial_scale - off - x1
    h = r[:, 4] * spatial_scale - off - y1
    if min1:
        w, h = w.clamp_min(1.0), h.clamp_min(1.0)  # a roi is at least one pixel wide and high
    return r[:, 0].long(), x1, y1, w, h


def _coords(start, size, P, g):
    """(M, P*g) sample coordinates along one axis: bin p, sample i at start + p*bin + (i + 0.5)*bin/g."""
    p = torch.arange(P, device=start.device, dtype=start.dtype)
    i = torch.arange(g, device=start.device, dtype=start.dtype)
    bin_ = (size / P)[:, None, None]
    c = start[:, None, None] + p[None, :, None] * bin_ + (i[None, None, :] + 0.5) * bin_ / g
    return c.reshape(start.shape[0], P * g)


def _bilinear_axis(c, n, clamp=True):
    """torchvision's border rule along one axis of size n: (low, high, weight of low, weight of high).
    A coordinate below -1 or above n gives weight 0; else below 0 reads 0 and at or past n - 1 reads n - 1."""
    valid = ((c >= -1.0) & (c <= n)).to(c.dtype)
    if clamp:
        c = c.clamp_min(0.0)
        low = c.floor().long()
        top = low >= n - 1
        low = low.clamp_max(n - 1)
        high = torch.where(top, low, low + 1)
        c = torch.where(top, low.to(c.dtype), c)
        frac = c - low
        return low, high, (1 - frac) * valid, frac * valid
    # no clamp: zero padding, the neighbours outside the map weigh nothing (grid_sample's padding_mode="zeros")
    low = c.floor().long()
    frac = c - low
    w_low = (1 - frac) * ((low >= 0) & (low <= n - 1))
    w_high = frac * ((low + 1 >= 0) & (low + 1 <= n - 1))
    return low.clamp(0, n - 1), (low + 1).clamp(0, n - 1), w_low, w_high


def _sample(fmap, b, ys, xs, gh, gw, Ph, Pw, clamp=True, full_border=False):
    """Average of the bilinear samples of every bin: fmap (B, H, W, C), ys (M, Ph*gh), xs (M, Pw*gw) ->
    (M, C, Ph, Pw)."""
    H, W = fmap.shape[1], fmap.shape[2]
    if full_border:  # every sample clamped to the map, none set to zero (grid_sample's padding_mode="border")
        ys, xs = ys.clamp(0, H - 1), xs.clamp(0, W - 1)
    yl, yh, wyl, wyh = _bilinear_axis(ys, H, clamp)
    xl, xh, wxl, wxh = _bilinear_axis(xs, W, clamp)
    bb = b[:, None, None]
    out = 0
    for yi, wy in ((yl, wyl), (yh, wyh)):
        for xi, wx in ((xl, wxl), (xh, wxh)):
            w = (wy[:, :, None] * wx[:, None, :])[..., None]  # (M, Sy, Sx, 1)
            out = out + fmap[bb, yi[:, :, None], xi[:, None, :]] * w  # (M, Sy, Sx, C)
    M, C = out.shape[0], out.shape[-1]
    out = out.reshape(M, Ph, gh, Pw, gw, C).sum(dim=(2, 4)) / max(gh * gw, 1)
    return out.permute(0, 3, 1, 2)  # (M, C, Ph, Pw)


def _grid(size, P, sampling_ratio, round_=math.ceil):
    return sampling_ratio if sampling_ratio > 0 else int(round_(size / P))


def _roi_align(features, rois, output_size, spatial_scale, sampling_ratio, aligned=False, *, batch=True,
               round_=math.ceil, clamp=True, full_border=False, off=None, min1=None):
    ct = torch.promote_types(features.dtype, torch.float32)  # fp16 maths in float32
    Ph, Pw = output_size
    fmap = features.permute(0, 2, 3, 1).to(ct)  # (B, H, W, C)
    off = (0.5 if aligned else 0.0) if off is None else off
    min1 = (not aligned) if min1 is None else min1
    b, x1, y1, w, h = _rois(rois, spatial_scale, off, min1, ct)
    if not batch:
        b = torch.zeros_like(b)  # every roi read from image 0
    if sampling_ratio > 0:
        g = sampling_ratio
        out = _sample(fmap, b, _coords(y1, h, Ph, g), _coords(x1, w, Pw, g), g, g, Ph, Pw, clamp, full_border)
    else:  # the adaptive grid, ceil(roi size / bins) samples per bin and axis, differs per roi
        parts = []
        for m, (hm, wm) in enumerate(zip(h.tolist(), w.tolist())):
            gh, gw = _grid(hm, Ph, 0, round_), _grid(wm, Pw, 0, round_)
            sl = slice(m, m + 1)
            parts.append(_sample(fmap, b[sl], _coords(y1[sl], h[sl], Ph, gh), _coords(x1[sl], w[sl], Pw, gw),
                                 gh, gw, Ph, Pw, clamp, full_border))
        out = torch.cat(parts) if parts else fmap.new_zeros(0, fmap.shape[-1], Ph, Pw)
    return out.to(features.dtype)


def roi_align(features, rois, output_size, spatial_scale: float, sampling_ratio: int, *, aligned=False):
    return _roi_align(features, rois, tuple(output_size), spatial_scale, sampling_ratio, aligned)


# ----------------------------------------------------------------------------- traps


def trap_xy_swapped(features, rois, output_size, spatial_scale: float, sampling_ratio: int, *, aligned=False):
    """rois read as (batch, y1, x1, y2, x2)."""
    swapped = rois[:, [0, 2, 1, 4, 3]]
    return _roi_align(features, swapped, tuple(output_size), spatial_scale, sampling_ratio, aligned)


def trap_batch_ignored(features, rois, output_size, spatial_scale: float, sampling_ratio: int, *, aligned=False):
    return _roi_align(features, rois, tuple(output_size), spatial_scale, sampling_ratio, aligned, batch=False)


def trap_floor_grid(features, rois, output_size, spatial_scale: float, sampling_ratio: int, *, aligned=False):
    """int(roi_h / Ph) samples per bin: a roi smaller than its bins gets none (and gives 0)."""
    return _roi_align(features, rois, tuple(output_size), spatial_scale, sampling_ratio, aligned, round_=math.floor)


def trap_zeros_padding(features, rois, output_size, spatial_scale: float, sampling_ratio: int, *, aligned=False):
    """Bilinear with zeros outside the map: no clamp to row 0 / row H - 1 for samples within a pixel of the edge."""
    return _roi_align(features, rois, tuple(output_size), spatial_scale, sampling_ratio, aligned, clamp=False)


def trap_border_everywhere(features, rois, output_size, spatial_scale: float, sampling_ratio: int, *, aligned=False):
    """Every sample clamped to the map: samples more than a pixel outside read the edge instead of 0."""
    return _roi_align(features, rois, tuple(output_size), spatial_scale, sampling_ratio, aligned, full_border=True)


def trap_aligned_false(features, rois, output_size, spatial_scale: float, sampling_ratio: int):
    """Under aligned=true: torchvision's default, no half-pixel shift and a size of at least 1."""
    return _roi_align(features, rois, tuple(output_size), spatial_scale, sampling_ratio, False)


def trap_no_half_pixel_shift(features, rois, output_size, spatial_scale: float, sampling_ratio: int):
    """Under aligned=true: the size left free but the -0.5 shift forgotten."""
    return _roi_align(features, rois, tuple(output_size), spatial_scale, sampling_ratio, True, off=0.0)


def trap_size_clamped(features, rois, output_size, spatial_scale: float, sampling_ratio: int):
    """Under aligned=true: the shift applied but the size still clamped to at least 1 (the aligned=False rule)."""
    return _roi_align(features, rois, tuple(output_size), spatial_scale, sampling_ratio, True, min1=True)


# ----------------------------------------------------------------------------- inputs


def _sample_coords(start, size, P, g):
    return [start + p * size / P + (i + 0.5) * size / P / g for p in range(P) for i in range(g)]


def _roi_ok(roi, H, W, Ph, Pw, scale, sr, aligned, margin=0.05):
    """No sample near the -1 / H border jumps, no adaptive grid near a whole number, no size near 1."""
    _, x1, y1, x2, y2 = roi
    off = 0.5 if aligned else 0.0
    for a, b, P, n in ((x1, x2, Pw, W), (y1, y2, Ph, H)):
        start, end = a * scale - off, b * scale - off
        size = end - start
        if abs(size - 1.0) < margin:
            return False
        if not aligned:
            size = max(size, 1.0)
        if sr > 0:
            g = sr
        else:
            q = size / P
            if q > 0 and abs(q - round(q)) < margin:
                return False
            g = math.ceil(q)
        for c in _sample_coords(start, size, P, g):
            if abs(c + 1.0) < margin or abs(c - n) < margin:
                return False
    return True


def make_rois(ctx, shape, dtype, kind="mixed", aligned=False):
    """(M, 5) rois in image coordinates (feature pixels / spatial_scale) in the features' dtype, batch index first.
    kind: mixed (inside, crossing a border, beyond it, tiny), borders (every roi crosses or lies past a border),
    tiny (smaller than a feature pixel, some of no extent). Rois whose samples sit near a discontinuity of the
    border rule or of the adaptive grid are drawn again, so rounding cannot flip an answer."""
    M = shape[0]
    B, H, W = ctx.sizes["B"], ctx.sizes["H"], ctx.sizes["W"]
    Ph, Pw = ctx.sizes["Ph"], ctx.sizes["Pw"]
    scale = float(ctx.params.get("spatial_scale", 1.0))
    sr = int(ctx.params.get("sampling_ratio", 0))
    rng = ctx.rng
    rows = []
    for m in range(M):
        pick = kind if kind != "mixed" else ("inside", "cross", "beyond", "tiny", "inside", "cross")[m % 6]
        for _ in range(1000):
            if pick == "inside":
                x1, y1 = rng.uniform(0, W - 2), rng.uniform(0, H - 2)
                x2, y2 = rng.uniform(x1 + 1.2, W), rng.uniform(y1 + 1.2, H)
            elif pick == "cross" or pick == "borders":
                x1, y1 = rng.uniform(-4, W / 2), rng.uniform(-4, H / 2)
                x2, y2 = rng.uniform(W / 2, W + 4), rng.uniform(H / 2, H + 4)
                if pick == "borders" and m % 3 == 2:  # entirely past the far corner
                    x1, y1 = rng.uniform(W + 0.2, W + 2), rng.uniform(H + 0.2, H + 2)
                    x2, y2 = x1 + rng.uniform(1.5, 4), y1 + rng.uniform(1.5, 4)
            elif pick == "beyond":  # past the left or top edge, or past the far ones
                if rng.random() < 0.5:
                    x1, y1 = rng.uniform(-8, -3), rng.uniform(-3, H - 3)
                    x2, y2 = x1 + rng.uniform(1.5, 2.5), y1 + rng.uniform(1.5, 3)
                else:
                    x1, y1 = rng.uniform(0, W - 3), rng.uniform(H + 1.5, H + 6)
                    x2, y2 = x1 + rng.uniform(1.5, 3), y1 + rng.uniform(1.5, 3)
            else:  # tiny: under one feature pixel, or of no extent at all
                x1, y1 = rng.uniform(-0.8, W - 1), rng.uniform(-0.8, H - 1)
                if rng.random() < 0.4:
                    x2, y2 = x1, y1
                else:
                    x2, y2 = x1 + rng.uniform(0.05, 0.8), y1 + rng.uniform(0.05, 0.8)
            bi = m % B if m < 2 * B else rng.randrange(B)
            roi = torch.tensor([bi, x1 / scale, y1 / scale, x2 / scale, y2 / scale], dtype=torch.float64).to(dtype)
            vals = [float(v) for v in roi.double()]
            if vals[3] >= vals[1] and vals[4] >= vals[2] and _roi_ok(vals, H, W, Ph, Pw, scale, sr, aligned):
                rows.append(roi)
                break
        else:
            raise ValueError(f"make_rois: no {pick} roi fits H={H}, W={W}")
    return torch.stack(rows)


def make_output_size(ctx, shape, dtype):
    return (ctx.sizes["Ph"], ctx.sizes["Pw"])


# ------------------------------------------------- trap matching: the shapes of one mistake


def _close(call, got, want) -> bool:
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(want.shape) or not got.is_floating_point():
        return False
    tol = (6e-2, 4e-2) if call.dtype == torch.float16 else (4e-5, 4e-4)
    return bool(((got.double() - want.double()).abs() <= tol[0] + tol[1] * want.double().abs()).all())


def match_floor_grid(call, got, trap_out) -> bool:
    """floor for the adaptive grid, with or without a guard keeping at least one sample per bin."""
    features, rois, output_size, scale, sr = call.args
    aligned = bool(dict(call.function.args[1].options or {}).get("aligned", False))  # the variant's rois generator
    f, r = features.double(), rois.double()
    floor1 = lambda v: max(math.floor(v), 1)  # noqa: E731
    return _close(call, got, _roi_align(f, r, tuple(output_size), scale, sr, aligned, round_=floor1))
