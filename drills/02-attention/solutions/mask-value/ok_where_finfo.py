import torch


def masked_softmax(scores, keep):
    neg = torch.finfo(scores.dtype).min
    x = torch.where(keep != 0, scores, torch.tensor(neg, dtype=scores.dtype))
    return torch.softmax(x, dim=-1)
