# trap: floor-grid
# int() for the adaptive grid: a roi smaller than its bins gets no sample and stays 0.
import math

import torch


def bilinear(fm, y, x):
    C, H, W = fm.shape
    if y < -1.0 or y > H or x < -1.0 or x > W:
        return fm.new_zeros(C)
    y, x = max(y, 0.0), max(x, 0.0)
    yl, xl = int(y), int(x)
    if yl >= H - 1:
        yl = yh = H - 1
        y = float(yl)
    else:
        yh = yl + 1
    if xl >= W - 1:
        xl = xh = W - 1
        x = float(xl)
    else:
        xh = xl + 1
    ly, lx = y - yl, x - xl
    hy, hx = 1 - ly, 1 - lx
    return hy * hx * fm[:, yl, xl] + hy * lx * fm[:, yl, xh] + ly * hx * fm[:, yh, xl] + ly * lx * fm[:, yh, xh]


def roi_align(features, rois, output_size, spatial_scale, sampling_ratio):
    B, C, H, W = features.shape
    Ph, Pw = output_size
    f = features.double()
    out = torch.zeros(rois.shape[0], C, Ph, Pw, dtype=torch.float64, device=features.device)
    for m, (b, x1, y1, x2, y2) in enumerate(rois.double().tolist()):
        fm = f[int(b)]
        sx, sy = x1 * spatial_scale, y1 * spatial_scale
        rw = max(x2 * spatial_scale - sx, 1.0)
        rh = max(y2 * spatial_scale - sy, 1.0)
        bw, bh = rw / Pw, rh / Ph
        gy = sampling_ratio if sampling_ratio > 0 else int(rh / Ph)
        gx = sampling_ratio if sampling_ratio > 0 else int(rw / Pw)
        for ph in range(Ph):
            for pw in range(Pw):
                acc = fm.new_zeros(C)
                for iy in range(gy):
                    y = sy + ph * bh + (iy + 0.5) * bh / gy
                    for ix in range(gx):
                        acc += bilinear(fm, y, sx + pw * bw + (ix + 0.5) * bw / gx)
                out[m, :, ph, pw] = acc / max(gy * gx, 1)
    return out.to(features.dtype)
