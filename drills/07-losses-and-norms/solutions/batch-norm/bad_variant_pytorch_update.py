# trap: pytorch-convention
# variant: momentum=keras
# PyTorch's update, memorised, for Keras's momentum.
import torch


def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    xf = x.float()
    if training:
        var, mean = torch.var_mean(xf, dim=(0, 2, 3), correction=0)
        n = x.numel() // x.shape[1]
        new_mean = (1 - momentum) * running_mean + momentum * mean
        new_var = (1 - momentum) * running_var + momentum * var * n / (n - 1)
    else:
        mean, var, new_mean, new_var = running_mean, running_var, running_mean, running_var
    y = (xf - mean[:, None, None]) / torch.sqrt(var[:, None, None] + eps)
    return (y * weight[:, None, None] + bias[:, None, None]).to(x.dtype), new_mean, new_var
