# One strided slice per kernel tap, accumulated in float32; the groups as a batched matmul.
import torch
import torch.nn.functional as F


def conv2d(x, weight, bias, stride, padding, dilation, groups):
    B, C, H, W = x.shape
    C_out, Cg, kh, kw = weight.shape
    G, Og = groups, C_out // groups
    H_out = (H + 2 * padding - dilation * (kh - 1) - 1) // stride + 1
    W_out = (W + 2 * padding - dilation * (kw - 1) - 1) // stride + 1
    xp = F.pad(x.float(), (padding, padding, padding, padding))
    w = weight.float().view(G, Og, Cg, kh, kw)
    out = torch.zeros(B, G, Og, H_out * W_out, dtype=torch.float32, device=x.device)
    for i in range(kh):
        for j in range(kw):
            top, left = i * dilation, j * dilation
            tap = xp[:, :, top: top + stride * (H_out - 1) + 1: stride, left: left + stride * (W_out - 1) + 1: stride]
            tap = tap.reshape(B, G, Cg, H_out * W_out)
            out += w[:, :, :, i, j] @ tap  # (G, Og, Cg) @ (B, G, Cg, L) -> (B, G, Og, L)
    out = out.reshape(B, C_out, H_out, W_out) + bias.float()[:, None, None]
    return out.to(x.dtype)
