# trap: keras-convention
# Keras's moving-average habit in a PyTorch layer: momentum is taken as the old value's share.
import torch


def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    xf = x.float()
    if training:
        mean = xf.mean((0, 2, 3))
        var = xf.var((0, 2, 3), unbiased=False)
        new_mean = momentum * running_mean + (1 - momentum) * mean
        new_var = momentum * running_var + (1 - momentum) * var
    else:
        mean, var, new_mean, new_var = running_mean, running_var, running_mean, running_var
    y = (xf - mean[:, None, None]) * torch.rsqrt(var[:, None, None] + eps)
    return (y * weight[:, None, None] + bias[:, None, None]).to(x.dtype), new_mean, new_var
