# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def unpatchify(tokens, C, H, W, P):
    B = tokens.shape[0]
    a = tokens.numpy().reshape(B, H // P, W // P, C, P, P)
    a = np.transpose(a, (0, 3, 1, 4, 2, 5)).reshape(B, C, H, W)
    return torch.from_numpy(np.ascontiguousarray(a))
