# trap: nchw-output
# variant: layout=nhwc
# Inputs permuted to torch's layouts, the answer returned as computed, (B, C_out, H_out, W_out).
import torch
import torch.nn.functional as F


def conv2d(x, weight, bias, stride, padding, dilation, groups):
    x = x.permute(0, 3, 1, 2)
    w = weight.permute(3, 2, 0, 1)
    B, C, H, W = x.shape
    C_out, Cg, kh, kw = w.shape
    xp = F.pad(x, (padding,) * 4)
    win = xp.unfold(2, dilation * (kh - 1) + 1, stride).unfold(3, dilation * (kw - 1) + 1, stride)
    win = win[..., ::dilation, ::dilation]
    H_out, W_out = win.shape[2], win.shape[3]
    win = win.reshape(B, groups, Cg, H_out, W_out, kh, kw)
    out = torch.einsum("bgcyxij,gocij->bgoyx", win, w.reshape(groups, C_out // groups, Cg, kh, kw))
    return out.reshape(B, C_out, H_out, W_out) + bias[:, None, None]
