# trap: none
# Right in every case, but it cannot train: no gradient reaches rewards (its values leave autograd on the way: .item(), .tolist(), .detach() or a NumPy copy).
import math
import torch


def group_advantages(rewards, P, G, eps=1e-6):
    vals = rewards.tolist()
    out = []
    for p in range(P):
        grp = vals[p * G:(p + 1) * G]
        m = sum(grp) / G
        sd = math.sqrt(sum((v - m) ** 2 for v in grp) / G)
        out.extend((v - m) / (sd + eps) for v in grp)
    return torch.tensor(out, dtype=rewards.dtype)
