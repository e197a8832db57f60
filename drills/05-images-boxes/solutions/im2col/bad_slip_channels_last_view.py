# trap: none
# Multiplies patches-first, (B, L, C*k*k) @ (C*k*k, C_out) = (B, L, C_out), then
# views that straight as (B, C_out, H_out, W_out) without moving C_out forward.
import torch.nn.functional as F


def conv2d_im2col(x, weight, stride, padding):
    B, C, H, W = x.shape
    C_out, _, k, _ = weight.shape
    H_out = (H + 2 * padding - k) // stride + 1
    W_out = (W + 2 * padding - k) // stride + 1
    cols = F.unfold(x, k, padding=padding, stride=stride).transpose(1, 2)  # (B, L, C*k*k)
    out = cols @ weight.reshape(C_out, -1).T  # (B, L, C_out)
    return out.reshape(B, C_out, H_out, W_out)
