# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def split_heads(x, H):
    B, T, d = x.shape
    return torch.einsum("bthd->bhtd", x.reshape(B, T, H, d // H))


def merge_heads(x):
    B, H, T, dh = x.shape
    a = np.ascontiguousarray(x.numpy().transpose(0, 2, 1, 3)).reshape(B, T, H * dh)
    return torch.from_numpy(a)
