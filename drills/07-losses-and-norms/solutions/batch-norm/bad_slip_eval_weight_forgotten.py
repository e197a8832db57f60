# trap: none
# The eval branch written separately, and the affine forgotten there.
import torch


def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    xf = x.float()
    w, b = weight[:, None, None], bias[:, None, None]
    if not training:
        y = (xf - running_mean[:, None, None]) / torch.sqrt(running_var[:, None, None] + eps)
        return y.to(x.dtype), running_mean, running_var
    var, mean = torch.var_mean(xf, dim=(0, 2, 3), correction=0)
    n = x.numel() // x.shape[1]
    y = (xf - mean[:, None, None]) / torch.sqrt(var[:, None, None] + eps) * w + b
    new_mean = (1 - momentum) * running_mean + momentum * mean
    new_var = (1 - momentum) * running_var + momentum * var * n / (n - 1)
    return y.to(x.dtype), new_mean, new_var
