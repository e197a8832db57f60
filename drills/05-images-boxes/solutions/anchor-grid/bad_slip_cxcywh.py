# trap: none
# Returns the anchors as (cx, cy, w, h), another common box format, instead of corners.
import torch


def make_anchors(H_f, W_f, stride, wh):
    dtype = wh.dtype if wh.is_floating_point() else torch.float32
    ys = (torch.arange(H_f, dtype=dtype) + 0.5) * stride
    xs = (torch.arange(W_f, dtype=dtype) + 0.5) * stride
    cy, cx = torch.meshgrid(ys, xs, indexing="ij")
    A = wh.shape[0]
    centres = torch.stack([cx, cy], -1)[:, :, None, :].expand(H_f, W_f, A, 2)
    sizes = wh.to(dtype).expand(H_f, W_f, A, 2)
    return torch.cat([centres, sizes], -1).reshape(-1, 4)
