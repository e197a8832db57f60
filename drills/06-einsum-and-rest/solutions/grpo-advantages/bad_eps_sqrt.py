# trap: eps-inside-sqrt
import torch


def group_advantages(rewards, P, G, eps=1e-6):
    r = rewards.float().reshape(P, G)
    c = r - r.mean(1, keepdim=True)
    return (c / torch.sqrt((c ** 2).mean(1, keepdim=True) + eps)).reshape(-1).to(rewards.dtype)
