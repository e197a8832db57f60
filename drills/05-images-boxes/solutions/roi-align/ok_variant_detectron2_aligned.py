# variant: aligned=true
# Detectron2's aligned=True: the scaled corners shifted by half a pixel, no minimum size.
import math

import torch


def _axis_weights(start, size, P, n, length, device):
    Wt = torch.zeros(P, length, device=device)
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
            else:
                Wt[p, lo] += (1 - (c - lo)) / n
                Wt[p, lo + 1] += (c - lo) / n
    return Wt


def roi_align(features, rois, output_size, spatial_scale, sampling_ratio):
    B, C, H, W = features.shape
    Ph, Pw = output_size
    outs = []
    for b, x1, y1, x2, y2 in rois.double().tolist():
        sx, sy = x1 * spatial_scale - 0.5, y1 * spatial_scale - 0.5
        w, h = x2 * spatial_scale - 0.5 - sx, y2 * spatial_scale - 0.5 - sy
        ny = sampling_ratio if sampling_ratio > 0 else math.ceil(h / Ph)
        nx = sampling_ratio if sampling_ratio > 0 else math.ceil(w / Pw)
        if ny * nx == 0:  # no extent, no samples: the bins stay 0
            outs.append(features.new_zeros(C, Ph, Pw, dtype=torch.float32))
            continue
        Wy = _axis_weights(sy, h, Ph, ny, H, features.device)
        Wx = _axis_weights(sx, w, Pw, nx, W, features.device)
        outs.append(torch.einsum("ph,chw,qw->cpq", Wy, features[int(b)].float(), Wx))
    return torch.stack(outs).to(features.dtype)
