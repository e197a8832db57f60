# trap: border-everywhere
# Every sample clamped into the map first (grid_sample's padding_mode="border"); nothing is ever set to 0.
import math

import torch


def roi_align(features, rois, output_size, spatial_scale, sampling_ratio):
    B, C, H, W = features.shape
    Ph, Pw = output_size
    out = []
    for b, x1, y1, x2, y2 in rois.tolist():
        fm = features[int(b)].float()
        sx, sy = x1 * spatial_scale, y1 * spatial_scale
        rw, rh = max(x2 * spatial_scale - sx, 1.0), max(y2 * spatial_scale - sy, 1.0)
        gy = sampling_ratio if sampling_ratio > 0 else math.ceil(rh / Ph)
        gx = sampling_ratio if sampling_ratio > 0 else math.ceil(rw / Pw)
        ys = torch.tensor([sy + (p + (i + 0.5) / gy) * rh / Ph for p in range(Ph) for i in range(gy)],
                          device=features.device).clamp(0, H - 1)
        xs = torch.tensor([sx + (p + (i + 0.5) / gx) * rw / Pw for p in range(Pw) for i in range(gx)],
                          device=features.device).clamp(0, W - 1)
        y0 = ys.floor().long().clamp(max=H - 2) if H > 1 else ys.long()
        x0 = xs.floor().long().clamp(max=W - 2) if W > 1 else xs.long()
        dy, dx = (ys - y0)[:, None], (xs - x0)[None, :]
        v = ((1 - dy) * (1 - dx) * fm[:, y0][:, :, x0] + (1 - dy) * dx * fm[:, y0][:, :, x0 + 1]
             + dy * (1 - dx) * fm[:, y0 + 1][:, :, x0] + dy * dx * fm[:, y0 + 1][:, :, x0 + 1])  # (C, Ph*gy, Pw*gx)
        out.append(v.reshape(C, Ph, gy, Pw, gx).mean((2, 4)))
    return torch.stack(out).to(features.dtype)
