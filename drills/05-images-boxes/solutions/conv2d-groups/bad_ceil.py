# trap: ceil-output-size
# Sizes with math.ceil; the input padded at the far edges until the extra window fits.
import math

import torch
import torch.nn.functional as F


def conv2d(x, weight, bias, stride, padding, dilation, groups):
    B, C, H, W = x.shape
    C_out, Cg, kh, kw = weight.shape
    G, Og = groups, C_out // groups
    span_h, span_w = dilation * (kh - 1) + 1, dilation * (kw - 1) + 1
    H_out = math.ceil((H + 2 * padding - span_h) / stride) + 1
    W_out = math.ceil((W + 2 * padding - span_w) / stride) + 1
    need_h = (H_out - 1) * stride + span_h
    need_w = (W_out - 1) * stride + span_w
    xp = F.pad(x, (padding, need_w - W - padding, padding, need_h - H - padding))
    w = weight.view(G, Og, Cg, kh, kw)
    out = x.new_zeros(B, G, Og, H_out * W_out)
    for i in range(kh):
        for j in range(kw):
            tap = xp[:, :, i * dilation:: stride, j * dilation:: stride][:, :, :H_out, :W_out]
            out += w[:, :, :, i, j] @ tap.reshape(B, G, Cg, H_out * W_out)
    return out.reshape(B, C_out, H_out, W_out) + bias[:, None, None]
