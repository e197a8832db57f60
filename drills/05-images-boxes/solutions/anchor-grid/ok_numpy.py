# A NumPy round trip: right. Anchors are fixed priors, never trained, so computing them outside torch
# costs nothing (the drill has no gradient case).
import numpy as np
import torch


def make_anchors(H_f, W_f, stride, wh):
    dtype = wh.dtype if wh.is_floating_point() else torch.float32
    wh_np = wh.double().numpy()
    ys = (np.arange(H_f) + 0.5) * stride
    xs = (np.arange(W_f) + 0.5) * stride
    cy, cx = np.meshgrid(ys, xs, indexing="ij")
    centres = np.stack([cx, cy], axis=-1)
    half = wh_np / 2.0
    c = centres[:, :, None, :]
    boxes = np.concatenate([c - half, c + half], axis=-1)
    return torch.from_numpy(boxes.reshape(-1, 4)).to(dtype)
