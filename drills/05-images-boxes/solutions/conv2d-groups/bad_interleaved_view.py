# trap: interleaved-groups
# The channel axis split as (C // G, G): each group gets channels g, g + G, ...; the outputs are stacked by group.
import torch
import torch.nn.functional as F


def conv2d(x, weight, bias, stride, padding, dilation, groups):
    B, C, H, W = x.shape
    C_out, Cg, kh, kw = weight.shape
    G = groups
    xp = F.pad(x, (padding, padding, padding, padding))
    win = xp.unfold(2, dilation * (kh - 1) + 1, stride).unfold(3, dilation * (kw - 1) + 1, stride)
    win = win[..., ::dilation, ::dilation]
    H_out, W_out = win.shape[2], win.shape[3]
    win = win.reshape(B, Cg, G, H_out, W_out, kh, kw)
    w = weight.reshape(G, C_out // G, Cg, kh, kw)
    out = torch.einsum("bcgyxij,gocij->bgoyx", win, w)
    return out.reshape(B, C_out, H_out, W_out) + bias.view(1, C_out, 1, 1)
