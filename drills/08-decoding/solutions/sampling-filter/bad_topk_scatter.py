# trap: exact-k
# topk's k indices scattered into a mask, one row at a time: a tie at the k-th value loses a token.
import torch


def filter_logits(logits, temperature, top_k, min_p):
    z = logits / temperature[:, None]
    keep = torch.zeros_like(z, dtype=torch.bool)
    for b in range(z.shape[0]):
        k = int(top_k[b])
        if k == 0:
            keep[b] = True
        else:
            keep[b, torch.topk(z[b], k).indices] = True
    probs = torch.softmax(z.float(), dim=-1)
    keep &= probs >= min_p.float()[:, None] * probs.amax(-1, keepdim=True)
    return z.masked_fill(~keep, float("-inf"))
