# trap: none
# Min-p on the scaled logits but with the softmax of the whole batch flattened: one max for all rows.
import torch


def filter_logits(logits, temperature, top_k, min_p):
    z = logits / temperature[:, None]
    V = z.shape[-1]
    kth = z.sort(dim=-1, descending=True).values.gather(-1, (top_k.clamp(1, V) - 1)[:, None])
    keep = (z >= kth) | (top_k == 0)[:, None]
    keep &= z.float() - z.float().max() >= min_p.float().log()[:, None]
    return z.masked_fill(~keep, float("-inf"))
