# trap: log-of-softmax
import torch


def cross_entropy(logits, targets, label_smoothing=0.0, ignore_index=-100):
    probs = torch.softmax(logits.float(), dim=-1)
    keep = targets != ignore_index
    safe = torch.where(keep, targets, 0)
    p_target = probs.gather(-1, safe.unsqueeze(-1)).squeeze(-1)
    nll = -torch.log(p_target)
    smooth = -torch.log(probs).mean(-1)
    loss = (1 - label_smoothing) * nll + label_smoothing * smooth
    loss = loss * keep
    return loss.sum() / keep.sum().clamp(min=1)
