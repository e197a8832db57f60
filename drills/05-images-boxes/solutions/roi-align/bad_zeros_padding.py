# trap: zeros-padding
# Bilinear with each corner read only when it lies on the map (grid_sample's zero padding), in float32.
import math

import torch


def roi_align(features, rois, output_size, spatial_scale, sampling_ratio):
    B, C, H, W = features.shape
    Ph, Pw = output_size
    f = features.float()
    out = f.new_zeros(rois.shape[0], C, Ph, Pw)

    def read(fm, y, x):
        if 0 <= y < H and 0 <= x < W:
            return fm[:, y, x]
        return 0.0

    for m, (b, x1, y1, x2, y2) in enumerate(rois.double().tolist()):
        fm = f[int(b)]
        sx, sy = x1 * spatial_scale, y1 * spatial_scale
        rw, rh = max(x2 * spatial_scale - sx, 1.0), max(y2 * spatial_scale - sy, 1.0)
        gy = sampling_ratio if sampling_ratio > 0 else math.ceil(rh / Ph)
        gx = sampling_ratio if sampling_ratio > 0 else math.ceil(rw / Pw)
        for ph in range(Ph):
            for pw in range(Pw):
                acc = 0
                for iy in range(gy):
                    for ix in range(gx):
                        y = sy + (ph + (iy + 0.5) / gy) * rh / Ph
                        x = sx + (pw + (ix + 0.5) / gx) * rw / Pw
                        y0, x0 = math.floor(y), math.floor(x)
                        dy, dx = y - y0, x - x0
                        acc = acc + ((1 - dy) * (1 - dx) * read(fm, y0, x0) + (1 - dy) * dx * read(fm, y0, x0 + 1)
                                     + dy * (1 - dx) * read(fm, y0 + 1, x0) + dy * dx * read(fm, y0 + 1, x0 + 1))
                out[m, :, ph, pw] = acc / (gy * gx)
    return out.to(features.dtype)
