import torch


def cross_entropy(logits, targets, label_smoothing=0.0, ignore_index=-100):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits.float(), dim=-1)
    keep = targets != ignore_index
    onehot = (targets[..., None] == torch.arange(V)).float()   # arange made on the CPU
    q = (1 - label_smoothing) * onehot + label_smoothing / V
    per = -(q * logp).sum(-1)
    return torch.where(keep, per, 0.0).sum() / keep.sum().clamp(min=1)
