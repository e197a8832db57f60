# trap: biased-running-var
# One variance for both jobs: the biased one, also fed to the running update.
import torch


def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    xf = x.float()
    if training:
        mean = xf.mean((0, 2, 3))
        var = xf.var((0, 2, 3), unbiased=False)
        new_mean = (1 - momentum) * running_mean + momentum * mean
        new_var = (1 - momentum) * running_var + momentum * var
    else:
        mean, var, new_mean, new_var = running_mean, running_var, running_mean, running_var
    y = (xf - mean[:, None, None]) / (var[:, None, None] + eps).sqrt() * weight[:, None, None] + bias[:, None, None]
    return y.to(x.dtype), new_mean, new_var
