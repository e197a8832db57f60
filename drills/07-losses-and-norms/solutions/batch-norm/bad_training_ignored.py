# trap: batch-stats-in-eval
# The training flag never read: eval normalises with the batch and even moves the running stats.
import torch


def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    xf = x.float()
    var, mean = torch.var_mean(xf, dim=(0, 2, 3), unbiased=False)
    n = xf.numel() / xf.shape[1]
    new_mean = (1 - momentum) * running_mean + momentum * mean
    new_var = (1 - momentum) * running_var + momentum * var * n / (n - 1)
    y = (xf - mean[:, None, None]) * torch.rsqrt(var[:, None, None] + eps)
    return (y * weight[:, None, None] + bias[:, None, None]).to(x.dtype), new_mean, new_var
