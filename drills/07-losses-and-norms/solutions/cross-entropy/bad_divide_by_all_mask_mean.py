# trap: divide-by-all-positions
import torch


def cross_entropy(logits, targets, label_smoothing=0.0, ignore_index=-100):
    mask = (targets != ignore_index).float()
    logp = logits.float().log_softmax(-1)
    nll = -logp.gather(-1, targets.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    smooth = -logp.mean(-1)
    loss = (1 - label_smoothing) * nll + label_smoothing * smooth
    return (loss * mask).mean()
