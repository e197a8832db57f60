# trap: none
# variant: layout=nhwc
# The Keras kernel (kh, kw, C/G, C_out) reshaped straight to torch's (C_out, C/G, kh, kw) instead of permuted:
# the right shape, the numbers scrambled.
import torch
import torch.nn.functional as F


def conv2d(x, weight, bias, stride, padding, dilation, groups):
    x = x.permute(0, 3, 1, 2)
    kh, kw, Cg, C_out = weight.shape
    w = weight.reshape(C_out, Cg, kh, kw)
    B = x.shape[0]
    xp = F.pad(x, (padding,) * 4)
    win = xp.unfold(2, dilation * (kh - 1) + 1, stride).unfold(3, dilation * (kw - 1) + 1, stride)
    win = win[..., ::dilation, ::dilation]
    H_out, W_out = win.shape[2], win.shape[3]
    win = win.reshape(B, groups, Cg, H_out, W_out, kh, kw)
    out = torch.einsum("bgcyxij,gocij->byxgo", win, w.reshape(groups, C_out // groups, Cg, kh, kw))
    return out.reshape(B, H_out, W_out, C_out) + bias
