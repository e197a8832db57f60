# trap: dilation-ignored
# dilation is never read: the windows and the sizes of an ordinary convolution.
import torch
import torch.nn.functional as F


def conv2d(x, weight, bias, stride, padding, dilation, groups):
    B, C, H, W = x.shape
    C_out, Cg, kh, kw = weight.shape
    xp = F.pad(x, (padding, padding, padding, padding))
    win = xp.unfold(2, kh, stride).unfold(3, kw, stride)  # (B, C, H_out, W_out, kh, kw)
    H_out, W_out = win.shape[2], win.shape[3]
    win = win.reshape(B, groups, Cg, H_out, W_out, kh, kw)
    out = torch.einsum("bgcyxij,gocij->bgoyx", win, weight.reshape(groups, C_out // groups, Cg, kh, kw))
    return out.reshape(B, C_out, H_out, W_out) + bias[:, None, None]
