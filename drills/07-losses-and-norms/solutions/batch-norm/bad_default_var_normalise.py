# trap: unbiased-normalisation
# x.var's default correction used for y too; the running update is right.
import torch


def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    xf = x.float()
    if training:
        mean = xf.mean(dim=(0, 2, 3))
        var = xf.var(dim=(0, 2, 3))
        new_mean = (1 - momentum) * running_mean + momentum * mean
        new_var = (1 - momentum) * running_var + momentum * var
    else:
        mean, var = running_mean, running_var
        new_mean, new_var = running_mean.clone(), running_var.clone()
    y = (xf - mean.view(1, -1, 1, 1)) / torch.sqrt(var.view(1, -1, 1, 1) + eps)
    return (y * weight.view(1, -1, 1, 1) + bias.view(1, -1, 1, 1)).to(x.dtype), new_mean, new_var
