# variant: out=additive
# Hugging Face's 4D mask: 0.0 where attended, finfo(float32).min where hidden, added to the scores.
import torch


def combined_keep_mask(pad_mask):
    B, T = pad_mask.shape
    keep = torch.ones(T, T, dtype=torch.bool, device=pad_mask.device).tril()[None, None] \
        & pad_mask.bool()[:, None, None, :]
    out = torch.zeros(B, 1, T, T, dtype=torch.float32, device=pad_mask.device)
    return out.masked_fill(~keep, torch.finfo(torch.float32).min)
