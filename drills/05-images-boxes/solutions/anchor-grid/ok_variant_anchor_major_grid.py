# variant: order=anchor-major
# YOLOv5 lists predictions as (na, ny, nx): build the boxes with the anchor axis first.
import torch


def make_anchors(H_f, W_f, stride, wh):
    dt = wh.dtype if wh.is_floating_point() else torch.float32
    A = wh.shape[0]
    ys = (torch.arange(H_f, device=wh.device, dtype=dt) + 0.5) * stride
    xs = (torch.arange(W_f, device=wh.device, dtype=dt) + 0.5) * stride
    yv, xv = torch.meshgrid(ys, xs, indexing="ij")  # (H_f, W_f)
    grid = torch.stack((xv, yv), 2).expand(A, H_f, W_f, 2)  # (A, H_f, W_f, 2)
    half = (wh.to(dt) / 2).view(A, 1, 1, 2)
    return torch.cat((grid - half, grid + half), -1).reshape(-1, 4)
