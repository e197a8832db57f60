# Per-channel statistics gathered in zeros made on the CPU (right on a CPU, an error on a GPU).
import torch


def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    C = x.shape[1]
    if training:
        mean = torch.zeros(C)
        var = torch.zeros(C)
        for c in range(C):
            xc = x[:, c].float()
            mean[c] = xc.mean()
            var[c] = ((xc - mean[c]) ** 2).mean()
        n = x.numel() // C
        new_mean = (1 - momentum) * running_mean + momentum * mean
        new_var = (1 - momentum) * running_var + momentum * var * n / (n - 1)
    else:
        mean, var, new_mean, new_var = running_mean, running_var, running_mean, running_var
    y = (x.float() - mean[:, None, None]) / torch.sqrt(var[:, None, None] + eps)
    return (y * weight[:, None, None] + bias[:, None, None]).to(x.dtype), new_mean, new_var
