# trap: std-scaled
# variant: scale=none
# The GRPO recipe from memory, where the question asked for Dr. GRPO's mean-centred advantage.
import torch


def group_advantages(rewards, P, G, eps=1e-6):
    r = rewards.float().reshape(P, G)
    mean = r.mean(1, keepdim=True)
    std = r.std(1, unbiased=False, keepdim=True)
    return ((r - mean) / (std + eps)).reshape(-1).to(rewards.dtype)
