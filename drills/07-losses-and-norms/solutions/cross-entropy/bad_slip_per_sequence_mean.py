# trap: none
# each row's kept positions averaged first, then the rows averaged: a sequence mean, not a token mean
import torch


def cross_entropy(logits, targets, label_smoothing=0.0, ignore_index=-100):
    logp = torch.log_softmax(logits.float(), dim=-1)
    keep = (targets != ignore_index).float()
    nll = -logp.gather(-1, targets.clamp(min=0)[..., None])[..., 0]
    per = (1 - label_smoothing) * nll - label_smoothing * logp.mean(-1)
    row = (per * keep).sum(1) / keep.sum(1).clamp(min=1)
    return row.mean()
