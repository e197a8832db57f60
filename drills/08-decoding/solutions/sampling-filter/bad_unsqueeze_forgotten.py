# trap: params-not-reshaped
import torch


def filter_logits(logits, temperature, top_k, min_p):
    z = logits / temperature
    sorted_z = z.sort(dim=-1, descending=True).values
    kth = sorted_z.gather(1, (top_k - 1).clamp(min=0)[:, None])
    keep = (z >= kth) | (top_k[:, None] == 0)
    probs = z.float().softmax(-1)
    keep &= probs >= min_p[:, None] * probs.max(-1, keepdim=True).values
    return z.masked_fill(~keep, float("-inf"))
