# trap: logits-as-probs
# variant: input=logits
# The probability recipe run on raw logits: no softmax before the cumulative sum.
import torch


def top_p_filter(probs, p):
    sorted_p, idx = torch.sort(probs, dim=-1, descending=True)
    cum = torch.cumsum(sorted_p, dim=-1)
    sorted_p = sorted_p.masked_fill(cum - sorted_p >= p, 0.0)
    out = torch.zeros_like(probs).scatter(-1, idx, sorted_p)
    return out / out.sum(-1, keepdim=True)
