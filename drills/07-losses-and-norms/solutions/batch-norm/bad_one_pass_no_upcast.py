# trap: one-pass-variance  (E[x^2] - E[x]^2 straight on x: fp16 stays fp16)
import torch


def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    dims = (0, 2, 3)
    if training:
        mean = x.mean(dims)
        var = (x.pow(2).mean(dims) - mean.pow(2)).float()
        mean = mean.float()
        n = x.numel() // x.shape[1]
        new_mean = (1 - momentum) * running_mean + momentum * mean
        new_var = (1 - momentum) * running_var + momentum * var * (n / (n - 1))
    else:
        mean, var = running_mean, running_var
        new_mean, new_var = running_mean.clone(), running_var.clone()
    shape = (1, -1, 1, 1)
    y = (x.float() - mean.view(shape)) / torch.sqrt(var.view(shape) + eps) * weight.view(shape) + bias.view(shape)
    return y.to(x.dtype), new_mean, new_var
