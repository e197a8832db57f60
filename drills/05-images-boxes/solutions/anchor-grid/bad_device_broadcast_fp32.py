# device: mixes CPU tensors with the inputs (correct on a CPU, an error on a GPU)
import torch


def make_anchors(H_f, W_f, stride, wh):
    ys = torch.arange(H_f).float().add(0.5).mul(stride)
    xs = torch.arange(W_f).float().add(0.5).mul(stride)
    grid = torch.stack(torch.meshgrid(xs, ys, indexing="xy"), dim=-1)  # (H_f, W_f, 2) as (x, y)
    half = wh.float() / 2
    boxes = torch.cat([grid[:, :, None] - half, grid[:, :, None] + half], dim=-1)
    out = boxes.view(-1, 4)
    return out.to(wh.dtype) if wh.is_floating_point() else out
