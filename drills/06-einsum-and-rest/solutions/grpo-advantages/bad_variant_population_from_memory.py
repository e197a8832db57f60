# trap: population-std
# variant: std=unbiased
# The contract's answer from memory, where the question asked for TRL's unbiased std.
import torch


def group_advantages(rewards, P, G, eps=1e-6):
    r = rewards.reshape(P, G)
    mean = r.mean(dim=1, keepdim=True)
    std = r.std(dim=1, unbiased=False, keepdim=True)
    return ((r - mean) / (std + eps)).reshape(-1)
