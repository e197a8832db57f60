# trap: none
# Gathers column top_k instead of top_k - 1: the (k+1)-th value becomes the bar, one token too many survives.
import torch


def filter_logits(logits, temperature, top_k, min_p):
    z = logits / temperature[:, None]
    V = z.shape[-1]
    kth = z.sort(dim=-1, descending=True).values.gather(-1, top_k.clamp(0, V - 1)[:, None])
    keep = (z >= kth) | (top_k == 0)[:, None]
    keep &= z.float() - z.float().amax(-1, keepdim=True) >= min_p.float().log()[:, None]
    return z.masked_fill(~keep, float("-inf"))
