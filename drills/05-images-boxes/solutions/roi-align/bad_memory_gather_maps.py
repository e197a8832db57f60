# Each roi's whole feature map is gathered first, features[rois[:, 0]] as an (M, C, H, W) copy (62 GB for 1000
# proposals on a 256 x 200 x 304 level), and then sampled.
import math

import torch


def _axis(c, n):
    valid = (c >= -1) & (c <= n)
    c = c.clamp(min=0)
    lo = c.floor().long()
    top = lo >= n - 1
    lo = lo.clamp(max=n - 1)
    hi = torch.where(top, lo, lo + 1)
    c = torch.where(top, lo.to(c.dtype), c)
    frac = c - lo
    return lo, hi, (1 - frac) * valid, frac * valid


def roi_align(features, rois, output_size, spatial_scale, sampling_ratio):
    Ph, Pw = output_size
    M = rois.shape[0]
    H, W = features.shape[2], features.shape[3]
    maps = features[rois[:, 0].long()].float()  # (M, C, H, W)
    r = rois.float()
    sx, sy = r[:, 1] * spatial_scale, r[:, 2] * spatial_scale
    w = (r[:, 3] * spatial_scale - sx).clamp(min=1.0)
    h = (r[:, 4] * spatial_scale - sy).clamp(min=1.0)
    outs = []
    for m in range(M) if sampling_ratio <= 0 else [None]:
        s = slice(None) if m is None else slice(m, m + 1)
        ny = sampling_ratio if m is None else math.ceil(h[m].item() / Ph)
        nx = sampling_ratio if m is None else math.ceil(w[m].item() / Pw)
        dev = features.device
        ky = (torch.arange(Ph, device=dev)[:, None] + (torch.arange(ny, device=dev) + 0.5) / ny).reshape(-1)
        kx = (torch.arange(Pw, device=dev)[:, None] + (torch.arange(nx, device=dev) + 0.5) / nx).reshape(-1)
        ys = sy[s, None] + ky[None] * (h[s] / Ph)[:, None]
        xs = sx[s, None] + kx[None] * (w[s] / Pw)[:, None]
        y0, y1, wy0, wy1 = _axis(ys, H)
        x0, x1, wx0, wx1 = _axis(xs, W)
        mm = torch.arange(maps[s].shape[0], device=dev)[:, None, None]
        val = 0
        for yi, wy in ((y0, wy0), (y1, wy1)):
            for xi, wx in ((x0, wx0), (x1, wx1)):
                v = maps[s].permute(0, 2, 3, 1)[mm, yi[:, :, None], xi[:, None, :]]
                val = val + v * (wy[:, :, None] * wx[:, None, :])[..., None]
        val = val.reshape(val.shape[0], Ph, ny, Pw, nx, -1).sum((2, 4)) / max(ny * nx, 1)
        outs.append(val.permute(0, 3, 1, 2))
    return torch.cat(outs).to(features.dtype)
