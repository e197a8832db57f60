# trap: uniform-smoothing
# variant: smoothing=others
import torch


def cross_entropy(logits, targets, label_smoothing=0.0, ignore_index=-100):
    logp = torch.log_softmax(logits.float(), dim=-1)
    keep = targets != ignore_index
    nll = -logp.gather(-1, targets.masked_fill(~keep, 0)[..., None])[..., 0]
    per = (1 - label_smoothing) * nll - label_smoothing * logp.mean(-1)
    return per[keep].sum() / keep.sum().clamp(min=1)
