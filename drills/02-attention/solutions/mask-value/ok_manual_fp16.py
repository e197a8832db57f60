import torch


def masked_softmax(scores, keep):
    # everything in the input dtype, by hand
    k = keep.to(torch.bool)
    x = torch.where(k, scores, torch.full_like(scores, torch.finfo(scores.dtype).min))
    x = x - x.max(dim=-1, keepdim=True).values
    e = x.exp()
    return e / e.sum(dim=-1, keepdim=True)
