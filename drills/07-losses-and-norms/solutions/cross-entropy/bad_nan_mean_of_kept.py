# trap: nan-when-all-ignored
import torch


def cross_entropy(logits, targets, label_smoothing=0.0, ignore_index=-100):
    keep = targets != ignore_index
    logp = torch.log_softmax(logits[keep].float(), dim=-1)   # (N, V) kept rows only
    y = targets[keep]
    nll = -logp.gather(1, y[:, None]).squeeze(1)
    smooth = -logp.mean(1)
    return ((1 - label_smoothing) * nll + label_smoothing * smooth).mean()
