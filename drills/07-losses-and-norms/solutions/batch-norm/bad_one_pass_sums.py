# trap: one-pass-variance  (the textbook streaming formula: a sum and a sum of squares, in float32)
import torch


def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    if training:
        n = x.shape[0] * x.shape[2] * x.shape[3]
        xf = x.float()
        s1 = xf.sum(dim=(0, 2, 3))
        s2 = (xf ** 2).sum(dim=(0, 2, 3))
        mean = s1 / n
        var = s2 / n - mean ** 2
        new_mean = (1 - momentum) * running_mean + momentum * mean
        new_var = (1 - momentum) * running_var + momentum * var * n / (n - 1)
    else:
        mean, var, new_mean, new_var = running_mean, running_var, running_mean, running_var
    y = (x.float() - mean[:, None, None]) / torch.sqrt(var[:, None, None] + eps)
    return (y * weight[:, None, None] + bias[:, None, None]).to(x.dtype), new_mean, new_var
