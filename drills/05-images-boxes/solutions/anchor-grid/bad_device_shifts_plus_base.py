# device: mixes CPU tensors with the inputs (correct on a CPU, an error on a GPU)
import torch


def make_anchors(H_f, W_f, stride, wh):
    dt = wh.dtype if wh.is_floating_point() else torch.float32
    sx = torch.arange(W_f, dtype=dt) * stride + stride / 2
    sy = torch.arange(H_f, dtype=dt) * stride + stride / 2
    yy, xx = torch.meshgrid(sy, sx, indexing="ij")
    shifts = torch.stack([xx, yy, xx, yy], -1).reshape(-1, 1, 4)  # (HW, 1, 4)
    w, h = wh[:, 0].to(dt), wh[:, 1].to(dt)
    base = torch.stack([-w / 2, -h / 2, w / 2, h / 2], -1)  # (A, 4)
    return (shifts + base[None]).reshape(-1, 4)
