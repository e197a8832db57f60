# Bilinear sampling is separable: per roi, a (Ph, H) matrix of row weights and a (Pw, W) matrix of column
# weights, each already averaged over its samples, then out = Wy @ features[b] @ Wx^T.
import math

import torch


def _axis_weights(start, size, P, n, length, dtype, device):
    """(P, length): row p holds the mean over the bin's n samples of their bilinear weights."""
    Wt = torch.zeros(P, length, dtype=dtype, device=device)
    bin_ = size / P
    for p in range(P):
        for i in range(n):
            c = start + p * bin_ + (i + 0.5) * bin_ / n
            if c < -1.0 or c > length:
                continue
            c = max(c, 0.0)
            lo = int(c)
            if lo >= length - 1:
                Wt[p, length - 1] += 1.0 / n
                continue
            frac = c - lo
            Wt[p, lo] += (1 - frac) / n
            Wt[p, lo + 1] += frac / n
    return Wt


def roi_align(features, rois, output_size, spatial_scale, sampling_ratio):
    B, C, H, W = features.shape
    Ph, Pw = output_size
    f = features.float()
    outs = []
    for b, x1, y1, x2, y2 in rois.double().tolist():
        sx, sy = x1 * spatial_scale, y1 * spatial_scale
        w = max(x2 * spatial_scale - sx, 1.0)
        h = max(y2 * spatial_scale - sy, 1.0)
        ny = sampling_ratio if sampling_ratio > 0 else math.ceil(h / Ph)
        nx = sampling_ratio if sampling_ratio > 0 else math.ceil(w / Pw)
        Wy = _axis_weights(sy, h, Ph, ny, H, torch.float32, features.device)
        Wx = _axis_weights(sx, w, Pw, nx, W, torch.float32, features.device)
        outs.append(Wy @ f[int(b)] @ Wx.T)  # (C, Ph, Pw)
    if not outs:
        return features.new_zeros(0, C, Ph, Pw)
    return torch.stack(outs).to(features.dtype)
