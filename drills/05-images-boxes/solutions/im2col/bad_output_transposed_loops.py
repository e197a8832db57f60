# trap: output-transposed  (windows gathered by loops, each result written at [j, i] instead of [i, j])
import torch
import torch.nn.functional as F


def conv2d_im2col(x, weight, stride, padding):
    B, C, H, W = x.shape
    C_out, _, k, _ = weight.shape
    xp = F.pad(x, (padding, padding, padding, padding))
    H_out = (H + 2 * padding - k) // stride + 1
    W_out = (W + 2 * padding - k) // stride + 1
    w = weight.reshape(C_out, -1)
    out = x.new_zeros(B, C_out, W_out, H_out)
    for i in range(H_out):
        for j in range(W_out):
            patch = xp[:, :, i * stride:i * stride + k, j * stride:j * stride + k].reshape(B, -1)
            out[:, :, j, i] = patch @ w.T
    return out
