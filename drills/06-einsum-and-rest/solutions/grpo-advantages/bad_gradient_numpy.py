# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def group_advantages(rewards, P, G, eps=1e-6):
    r = rewards.float().numpy().reshape(P, G)
    adv = (r - r.mean(axis=1, keepdims=True)) / (r.std(axis=1, keepdims=True) + eps)  # numpy std: ddof=0
    return torch.from_numpy(adv.reshape(-1)).to(rewards.dtype)
