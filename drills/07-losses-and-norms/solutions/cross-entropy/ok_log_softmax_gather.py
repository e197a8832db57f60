import torch


def cross_entropy(logits, targets, label_smoothing=0.0, ignore_index=-100):
    logp = torch.log_softmax(logits.float(), dim=-1)
    keep = targets != ignore_index
    safe = torch.where(keep, targets, torch.zeros_like(targets))
    nll = -logp.gather(-1, safe.unsqueeze(-1)).squeeze(-1)
    smooth = -logp.mean(dim=-1)
    per = (1 - label_smoothing) * nll + label_smoothing * smooth
    per = torch.where(keep, per, torch.zeros_like(per))
    return per.sum() / keep.sum().clamp(min=1)
