import torch
import torch.nn.functional as F


def cross_entropy(logits, targets, label_smoothing=0.0, ignore_index=-100):
    V = logits.shape[-1]
    logp = logits.log_softmax(-1)                       # in the logits' own dtype
    keep = (targets != ignore_index).to(logp.dtype)
    onehot = F.one_hot(targets.clamp(0, V - 1), V).to(logp.dtype)
    q = (1 - label_smoothing) * onehot + label_smoothing / V
    per = -(q * logp).sum(-1)
    return (per * keep).sum() / keep.sum().clamp(min=1)
