# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def mse(pred, target):
    if pred.dtype == torch.float16:
        diff = pred[None, :] - target.T  # (1, N): still one pair per sample
        return (diff * diff).mean()
    p = pred.numpy().astype(np.float64)
    t = target.numpy()[:, 0].astype(np.float64)
    return torch.tensor(np.mean((p - t) ** 2), dtype=pred.dtype)
