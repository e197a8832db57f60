# variant: dead=zeros
# What SDPA's math backend does (torch._safe_softmax): -inf on masked keys, and rows left with no key are 0.
import torch


def masked_softmax(scores, keep):
    x = scores.masked_fill(keep == 0, float("-inf"))
    p = torch.softmax(x, dim=-1)
    no_key = (keep == 0).all(dim=-1, keepdim=True)          # (B, 1, T, 1)
    return torch.where(no_key, torch.zeros_like(p), p)
