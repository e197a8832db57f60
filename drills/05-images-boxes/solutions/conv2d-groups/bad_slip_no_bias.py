# trap: none
# Everything right but the bias, which is never added.
import torch
import torch.nn.functional as F


def conv2d(x, weight, bias, stride, padding, dilation, groups):
    B, C, H, W = x.shape
    C_out, Cg, kh, kw = weight.shape
    xp = F.pad(x, (padding, padding, padding, padding))
    win = xp.unfold(2, dilation * (kh - 1) + 1, stride).unfold(3, dilation * (kw - 1) + 1, stride)
    win = win[..., ::dilation, ::dilation]
    H_out, W_out = win.shape[2], win.shape[3]
    win = win.reshape(B, groups, Cg, H_out, W_out, kh, kw)
    out = torch.einsum("bgcyxij,gocij->bgoyx", win, weight.reshape(groups, C_out // groups, Cg, kh, kw))
    return out.reshape(B, C_out, H_out, W_out)
