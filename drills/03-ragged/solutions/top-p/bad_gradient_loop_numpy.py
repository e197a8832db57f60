# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def top_p_filter(probs, p):
    x = probs.double().numpy()
    out = np.zeros_like(x)
    for b in range(x.shape[0]):
        order = np.argsort(-x[b])
        mass = 0.0
        for j in order:
            if mass >= p:
                break
            out[b, j] = x[b, j]
            mass += x[b, j]
        out[b] /= out[b].sum()
    return torch.from_numpy(out).to(probs.dtype)
