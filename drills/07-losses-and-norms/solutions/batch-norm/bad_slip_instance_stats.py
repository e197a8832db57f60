# trap: none
# Statistics per sample and channel over (H, W) only: instance norm's axes, (B, C) statistics.
import torch


def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    xf = x.float()
    if training:
        mean = xf.mean((2, 3), keepdim=True)  # (B, C, 1, 1)
        var = xf.var((2, 3), unbiased=False, keepdim=True)
        n = x.shape[2] * x.shape[3]
        new_mean = (1 - momentum) * running_mean + momentum * mean.mean((0, 2, 3))
        new_var = (1 - momentum) * running_var + momentum * (var * n / (n - 1)).mean((0, 2, 3))
    else:
        mean, var = running_mean[:, None, None], running_var[:, None, None]
        new_mean, new_var = running_mean, running_var
    y = (xf - mean) / torch.sqrt(var + eps) * weight[:, None, None] + bias[:, None, None]
    return y.to(x.dtype), new_mean, new_var
