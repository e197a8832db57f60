# variant: momentum=keras
# Keras's BatchNormalization: momentum is the old value's share, and the moments are biased.
import torch


def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    xf = x.float()
    if training:
        mean = xf.mean(dim=(0, 2, 3))
        var = xf.var(dim=(0, 2, 3), unbiased=False)
        moving_mean = running_mean * momentum + mean * (1.0 - momentum)
        moving_var = running_var * momentum + var * (1.0 - momentum)
    else:
        mean, var = running_mean, running_var
        moving_mean, moving_var = running_mean, running_var
    inv = torch.rsqrt(var + eps) * weight
    y = (xf - mean.view(1, -1, 1, 1)) * inv.view(1, -1, 1, 1) + bias.view(1, -1, 1, 1)
    return y.to(x.dtype), moving_mean, moving_var
