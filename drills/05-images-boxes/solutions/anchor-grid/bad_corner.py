# trap: cell-corner
import torch


def make_anchors(H_f, W_f, stride, wh):
    wh = wh.float() if not wh.is_floating_point() else wh
    ys = torch.arange(H_f, dtype=wh.dtype) * stride
    xs = torch.arange(W_f, dtype=wh.dtype) * stride
    cy, cx = torch.meshgrid(ys, xs, indexing="ij")
    c = torch.stack([cx, cy], -1).reshape(-1, 1, 2)
    return torch.cat([c - wh / 2, c + wh / 2], -1).reshape(-1, 4)
