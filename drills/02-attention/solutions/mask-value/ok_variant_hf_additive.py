# variant: mask=additive
# Hugging Face's additive mask: 0.0 where attended, finfo.min where masked. Adding it cannot make a
# fully masked row uniform in fp16, so read it as a boolean and replace the masked scores instead.
import torch


def masked_softmax(scores, keep):
    attended = keep == 0                                    # (B, 1, T, S)
    neg = torch.finfo(scores.dtype).min
    x = torch.where(attended, scores, torch.full_like(scores, neg))
    return torch.softmax(x.float(), dim=-1).to(scores.dtype)
