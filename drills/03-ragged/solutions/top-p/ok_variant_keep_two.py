# variant: min_keep=two
# Hugging Face's min_tokens_to_keep=2 (beam sampling): the two most likely tokens always survive.
import torch


def top_p_filter(probs, p):
    sorted_p, idx = probs.sort(dim=-1, descending=True)
    before = sorted_p.cumsum(dim=-1) - sorted_p
    keep = before < p
    keep[:, :2] = True
    kept = torch.where(keep, sorted_p, torch.zeros_like(sorted_p))
    out = torch.empty_like(probs).scatter_(-1, idx, kept)
    return out / out.sum(dim=-1, keepdim=True)
