# trap: meshgrid-xy
import numpy as np
import torch


def make_anchors(H_f, W_f, stride, wh):
    dtype = wh.dtype if wh.is_floating_point() else torch.float32
    ys = (np.arange(H_f) + 0.5) * stride
    xs = (np.arange(W_f) + 0.5) * stride
    cy, cx = np.meshgrid(ys, xs)  # numpy's default indexing is "xy"
    c = np.stack([cx, cy], axis=-1)[:, :, None, :]
    half = wh.double().numpy() / 2
    boxes = np.concatenate([c - half, c + half], axis=-1)
    return torch.from_numpy(boxes.reshape(-1, 4)).to(dtype)
