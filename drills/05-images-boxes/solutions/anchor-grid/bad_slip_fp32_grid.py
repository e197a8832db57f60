# trap: none
# The centre grid is float32 (torch.arange's default), so fp16 wh is promoted: fp16 in, fp32 out.
import torch


def make_anchors(H_f, W_f, stride, wh):
    ys = (torch.arange(H_f, dtype=torch.float32) + 0.5) * stride
    xs = (torch.arange(W_f, dtype=torch.float32) + 0.5) * stride
    cy, cx = torch.meshgrid(ys, xs, indexing="ij")
    centres = torch.stack([cx, cy], -1).reshape(-1, 1, 2)  # (H_f*W_f, 1, 2)
    half = wh[None] / 2  # (1, A, 2)
    return torch.cat([centres - half, centres + half], -1).reshape(-1, 4)
