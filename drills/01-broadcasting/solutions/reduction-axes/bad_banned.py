import torch.nn.functional as F


def layer_norm(x, weight, bias, eps=1e-5):
    return F.layer_norm(x, x.shape[-1:], weight, bias, eps)


def batch_stats(x):
    return x.mean((0, 1)), x.var((0, 1), unbiased=False)
