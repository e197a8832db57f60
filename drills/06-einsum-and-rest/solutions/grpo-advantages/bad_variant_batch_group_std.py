# trap: std-scaled
# variant: scale=batch
# Each group divided by its own std, where the question asked for one std over the whole batch.
import torch


def group_advantages(rewards, P, G, eps=1e-6):
    r = rewards.double().view(P, G)
    std, mean = torch.std_mean(r, dim=1, keepdim=True, correction=0)
    return ((r - mean) / (std + eps)).flatten().to(rewards.dtype)
