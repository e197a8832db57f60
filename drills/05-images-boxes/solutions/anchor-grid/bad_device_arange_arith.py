# device: mixes CPU tensors with the inputs (correct on a CPU, an error on a GPU)
import torch


def make_anchors(H_f: int, W_f: int, stride: int, wh):
    wh = wh if wh.is_floating_point() else wh.float()
    cell = torch.arange(H_f * W_f)
    cx = ((cell % W_f).to(wh.dtype) + 0.5) * stride  # (H_f*W_f,)
    cy = ((cell // W_f).to(wh.dtype) + 0.5) * stride
    A = wh.shape[0]
    cx = cx.repeat_interleave(A)  # (H_f*W_f*A,)
    cy = cy.repeat_interleave(A)
    w = wh[:, 0].repeat(H_f * W_f)
    h = wh[:, 1].repeat(H_f * W_f)
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=1)
