# kernel: aten::layer_norm
import torch


def layer_norm(x, weight, bias, eps: float = 1e-5):
    return torch._VF.layer_norm(x, [x.shape[-1]], weight, bias, eps, False)


def batch_stats(x):
    mean = x.mean((0, 1))
    return mean, ((x - mean) ** 2).mean((0, 1))

