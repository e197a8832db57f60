# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def conv2d_im2col(x, weight, stride, padding):
    dtype = x.dtype
    a = x.float().numpy()
    w = weight.float().numpy()
    B, C, H, W = a.shape
    O, _, k, _ = w.shape
    a = np.pad(a, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    Ho = (H + 2 * padding - k) // stride + 1
    Wo = (W + 2 * padding - k) // stride + 1
    cols = np.empty((B, C, k, k, Ho, Wo), dtype=a.dtype)
    for u in range(k):
        for v in range(k):
            cols[:, :, u, v] = a[:, :, u:u + stride * Ho:stride, v:v + stride * Wo:stride]
    out = np.einsum("ok,bkl->bol", w.reshape(O, -1), cols.reshape(B, C * k * k, Ho * Wo))
    return torch.from_numpy(out.reshape(B, O, Ho, Wo)).to(dtype)
