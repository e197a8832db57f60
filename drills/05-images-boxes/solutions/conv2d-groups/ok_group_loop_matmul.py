# A loop over the groups, each an ordinary im2col matmul on its own channel block, then cat.
import torch


def conv2d(x, weight, bias, stride, padding, dilation, groups):
    B, C, H, W = x.shape
    C_out, Cg, kh, kw = weight.shape
    Og = C_out // groups
    H_out = (H + 2 * padding - dilation * (kh - 1) - 1) // stride + 1
    W_out = (W + 2 * padding - dilation * (kw - 1) - 1) // stride + 1
    xp = x.new_zeros(B, C, H + 2 * padding, W + 2 * padding)
    xp[:, :, padding: padding + H, padding: padding + W] = x
    outs = []
    for g in range(groups):
        xg = xp[:, g * Cg: (g + 1) * Cg]
        cols = torch.stack([
            xg[:, :, i * dilation: i * dilation + stride * (H_out - 1) + 1: stride,
               j * dilation: j * dilation + stride * (W_out - 1) + 1: stride]
            for i in range(kh) for j in range(kw)], dim=2)  # (B, Cg, kh*kw, H_out, W_out)
        cols = cols.reshape(B, Cg * kh * kw, H_out * W_out)
        wg = weight[g * Og: (g + 1) * Og].reshape(Og, Cg * kh * kw)
        outs.append((wg @ cols).reshape(B, Og, H_out, W_out))
    return torch.cat(outs, dim=1) + bias[:, None, None]
