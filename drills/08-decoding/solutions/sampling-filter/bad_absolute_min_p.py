# trap: absolute-min-p
import torch


def filter_logits(logits, temperature, top_k, min_p):
    z = logits / temperature[:, None]
    V = z.shape[1]
    kth = z.sort(-1, descending=True).values.gather(1, (top_k.clamp(1, V) - 1)[:, None])
    keep = (z >= kth) | (top_k == 0)[:, None]
    probs = torch.softmax(z.float(), dim=-1)
    keep = keep & (probs >= min_p[:, None])
    return z.masked_fill(~keep, float("-inf"))
