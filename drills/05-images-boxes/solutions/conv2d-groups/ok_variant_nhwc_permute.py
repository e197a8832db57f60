# variant: layout=nhwc
# Keras-style channels-last: permute to torch's layouts, compute with Tensor.unfold, permute back.
import torch
import torch.nn.functional as F


def conv2d(x, weight, bias, stride, padding, dilation, groups):
    x = x.permute(0, 3, 1, 2)  # (B, C, H, W)
    w = weight.permute(3, 2, 0, 1)  # (kh, kw, C/G, C_out) -> (C_out, C/G, kh, kw)
    B, C, H, W = x.shape
    C_out, Cg, kh, kw = w.shape
    G = groups
    xp = F.pad(x, (padding, padding, padding, padding))
    win = xp.unfold(2, dilation * (kh - 1) + 1, stride).unfold(3, dilation * (kw - 1) + 1, stride)
    win = win[..., ::dilation, ::dilation]  # (B, C, H_out, W_out, kh, kw)
    H_out, W_out = win.shape[2], win.shape[3]
    win = win.reshape(B, G, Cg, H_out, W_out, kh, kw)
    out = torch.einsum("bgcyxij,gocij->byxgo", win, w.reshape(G, C_out // G, Cg, kh, kw))
    return out.reshape(B, H_out, W_out, C_out) + bias
