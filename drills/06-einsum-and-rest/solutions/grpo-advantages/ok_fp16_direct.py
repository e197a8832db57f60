import torch


def group_advantages(rewards, P, G, eps=1e-6):
    r = rewards.view(P, G)
    mu = r.mean(dim=-1, keepdim=True)
    sd = r.std(dim=-1, correction=0, keepdim=True)
    return ((r - mu) / (sd + eps)).flatten()
