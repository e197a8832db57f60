# A NumPy round trip: right. Advantages are constants of the policy loss (TRL computes them under no_grad),
# so computing them outside torch costs nothing (the drill has no gradient case).
import numpy as np
import torch


def group_advantages(rewards, P, G, eps=1e-6):
    r = rewards.float().numpy().reshape(P, G)
    adv = (r - r.mean(axis=1, keepdims=True)) / (r.std(axis=1, keepdims=True) + eps)  # numpy std: ddof=0
    return torch.from_numpy(adv.reshape(-1)).to(rewards.dtype)
