import torch
import torch.nn.functional as F


def conv2d_im2col(x, weight, stride, padding):
    B, C, H, W = x.shape
    O, _, k, _ = weight.shape
    xp = F.pad(x, (padding, padding, padding, padding))
    Ho = (H + 2 * padding - k) // stride + 1
    Wo = (W + 2 * padding - k) // stride + 1
    out = x.new_zeros(B, O, Ho, Wo)
    for i in range(Ho):
        for j in range(Wo):
            win = xp[:, :, i * stride:i * stride + k, j * stride:j * stride + k]  # (B, C, k, k)
            out[:, :, i, j] = torch.einsum("bcuv,ocuv->bo", win, weight)
    return out
