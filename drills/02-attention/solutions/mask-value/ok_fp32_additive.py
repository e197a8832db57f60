import torch


def masked_softmax(scores, keep):
    # do the maths in fp32, where finfo(fp32).min swallows any score, then cast back
    s = scores.float()
    bias = (1.0 - keep.float()) * torch.finfo(torch.float32).min
    return torch.softmax(s + bias, dim=-1).to(scores.dtype)
