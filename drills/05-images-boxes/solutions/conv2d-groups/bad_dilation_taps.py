# trap: dilation-taps-adjacent
# The size formula has the dilation; the tap offsets forgot it (i and j, not i * d and j * d).
import torch
import torch.nn.functional as F


def conv2d(x, weight, bias, stride, padding, dilation, groups):
    B, C, H, W = x.shape
    C_out, Cg, kh, kw = weight.shape
    G, Og = groups, C_out // groups
    H_out = (H + 2 * padding - dilation * (kh - 1) - 1) // stride + 1
    W_out = (W + 2 * padding - dilation * (kw - 1) - 1) // stride + 1
    xp = F.pad(x, (padding, padding, padding, padding))
    w = weight.view(G, Og, Cg, kh, kw)
    out = x.new_zeros(B, G, Og, H_out * W_out)
    for i in range(kh):
        for j in range(kw):
            tap = xp[:, :, i: i + stride * (H_out - 1) + 1: stride, j: j + stride * (W_out - 1) + 1: stride]
            out += w[:, :, :, i, j] @ tap.reshape(B, G, Cg, H_out * W_out)
    return out.reshape(B, C_out, H_out, W_out) + bias[:, None, None]
