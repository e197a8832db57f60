# trap: ceil-output-size-padded
import math
import torch
import torch.nn.functional as F


def conv2d_im2col(x, weight, stride, padding):
    B, C, H, W = x.shape
    O, _, k, _ = weight.shape
    Ho = math.ceil((H + 2 * padding - k) / stride) + 1
    Wo = math.ceil((W + 2 * padding - k) / stride) + 1
    xp = F.pad(x, (padding, padding + k, padding, padding + k))  # room for the last window
    out = torch.zeros(B, O, Ho, Wo, dtype=x.dtype)
    for i in range(Ho):
        for j in range(Wo):
            win = xp[:, :, i * stride:i * stride + k, j * stride:j * stride + k]
            out[:, :, i, j] = (win[:, None] * weight[None]).sum((2, 3, 4))
    return out
