# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def patchify(images, P):
    B, C, H, W = images.shape
    a = images.numpy().reshape(B, C, H // P, P, W // P, P)
    a = np.einsum("bcipjq->bijcpq", a)
    out = np.ascontiguousarray(a).reshape(B, (H // P) * (W // P), C * P * P)
    return torch.from_numpy(out)
