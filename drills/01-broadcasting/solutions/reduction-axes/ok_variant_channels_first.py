# variant: layout=bdt
# channels first: the features are dim 1, so LayerNorm reduces dim 1 and the batch statistics (0, 2)
import torch


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(dim=1, keepdim=True)  # (B, 1, T)
    var = x.var(dim=1, keepdim=True, unbiased=False)
    x_hat = (x - mu) / torch.sqrt(var + eps)
    return x_hat * weight[:, None] + bias[:, None]  # (d, 1) broadcasts along dim 1


def batch_stats(x):
    return x.mean(dim=(0, 2)), x.var(dim=(0, 2), unbiased=False)
