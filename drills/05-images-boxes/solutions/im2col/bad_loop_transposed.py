# trap: output-transposed
import torch
import torch.nn.functional as F


def conv2d_im2col(x, weight, stride, padding):
    B, C, H, W = x.shape
    O, _, k, _ = weight.shape
    Ho = (H + 2 * padding - k) // stride + 1
    Wo = (W + 2 * padding - k) // stride + 1
    xp = F.pad(x, (padding,) * 4)
    out = torch.zeros(B, O, Wo, Ho, dtype=x.dtype)
    for i in range(Ho):
        for j in range(Wo):
            win = xp[:, :, i * stride:i * stride + k, j * stride:j * stride + k].reshape(B, -1)
            out[:, :, j, i] = win @ weight.reshape(O, -1).T
    return out
