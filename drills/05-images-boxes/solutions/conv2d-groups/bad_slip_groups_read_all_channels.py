# trap: none
# Every group reads the first C // G channels: the channel block is never offset by g.
import torch
import torch.nn.functional as F


def conv2d(x, weight, bias, stride, padding, dilation, groups):
    B, C, H, W = x.shape
    C_out, Cg, kh, kw = weight.shape
    Og = C_out // groups
    xp = F.pad(x, (padding, padding, padding, padding))
    win = xp.unfold(2, dilation * (kh - 1) + 1, stride).unfold(3, dilation * (kw - 1) + 1, stride)
    win = win[..., ::dilation, ::dilation]
    outs = [torch.einsum("bcyxij,ocij->boyx", win[:, :Cg], weight[g * Og: (g + 1) * Og]) for g in range(groups)]
    return torch.cat(outs, dim=1) + bias[:, None, None]
