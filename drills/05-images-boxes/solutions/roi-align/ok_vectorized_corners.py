# All rois at once for a fixed grid; one roi at a time when the grid adapts. Four gathered corners each.
import math

import torch


def _axis(c, n):
    valid = (c >= -1) & (c <= n)
    c = c.clamp(min=0)
    lo = c.floor().long()
    top = lo >= n - 1
    lo = torch.where(top, torch.full_like(lo, n - 1), lo)
    hi = torch.where(top, lo, lo + 1)
    c = torch.where(top, lo.to(c.dtype), c)
    frac = c - lo
    return lo, hi, (1 - frac) * valid, frac * valid


def _pool(fmap, b, sx, sy, w, h, Ph, Pw, ny, nx):
    dev, dt = fmap.device, fmap.dtype
    ky = (torch.arange(Ph, device=dev, dtype=dt)[:, None] + (torch.arange(ny, device=dev, dtype=dt) + 0.5) / ny)
    kx = (torch.arange(Pw, device=dev, dtype=dt)[:, None] + (torch.arange(nx, device=dev, dtype=dt) + 0.5) / nx)
    ys = sy[:, None] + ky.reshape(-1)[None] * (h / Ph)[:, None]  # (M, Ph*ny)
    xs = sx[:, None] + kx.reshape(-1)[None] * (w / Pw)[:, None]  # (M, Pw*nx)
    H, W = fmap.shape[1], fmap.shape[2]
    y0, y1, wy0, wy1 = _axis(ys, H)
    x0, x1, wx0, wx1 = _axis(xs, W)
    bb = b[:, None, None]
    val = 0
    for yi, wy in ((y0, wy0), (y1, wy1)):
        for xi, wx in ((x0, wx0), (x1, wx1)):
            val = val + fmap[bb, yi[:, :, None], xi[:, None, :]] * (wy[:, :, None] * wx[:, None, :])[..., None]
    M, C = b.shape[0], fmap.shape[-1]
    val = val.reshape(M, Ph, ny, Pw, nx, C).sum((2, 4)) / max(ny * nx, 1)
    return val.permute(0, 3, 1, 2)


def roi_align(features, rois, output_size, spatial_scale, sampling_ratio):
    Ph, Pw = output_size
    fmap = features.float().permute(0, 2, 3, 1)  # (B, H, W, C)
    r = rois.float()
    b = r[:, 0].long()
    sx, sy = r[:, 1] * spatial_scale, r[:, 2] * spatial_scale
    w = (r[:, 3] * spatial_scale - sx).clamp(min=1.0)
    h = (r[:, 4] * spatial_scale - sy).clamp(min=1.0)
    if sampling_ratio > 0:
        n = sampling_ratio
        return _pool(fmap, b, sx, sy, w, h, Ph, Pw, n, n).to(features.dtype)
    out = []
    for m in range(r.shape[0]):
        ny, nx = math.ceil(h[m].item() / Ph), math.ceil(w[m].item() / Pw)
        s = slice(m, m + 1)
        out.append(_pool(fmap, b[s], sx[s], sy[s], w[s], h[s], Ph, Pw, ny, nx))
    return torch.cat(out).to(features.dtype)
