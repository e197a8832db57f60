# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def load_balancing_loss(router_logits, k):
    x = router_logits.double().numpy()
    N, E = x.shape
    p = np.exp(x - x.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    top = np.argsort(-x, axis=1)[:, :k]
    f = np.bincount(top.ravel(), minlength=E) / N
    return torch.tensor(E * (f * p.mean(0)).sum(), dtype=torch.float32)
