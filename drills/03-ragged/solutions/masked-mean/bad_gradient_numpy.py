# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def masked_mean(x, mask):
    xs = x.double().numpy()
    m = mask.double().numpy()[..., None]
    n = np.maximum(m.sum(1), 1.0)
    return torch.from_numpy((xs * m).sum(1) / n).to(x.dtype)
