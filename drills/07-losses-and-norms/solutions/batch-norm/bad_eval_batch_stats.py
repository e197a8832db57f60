# trap: batch-stats-in-eval
# Statistics always from the batch; only the running update is guarded by the flag.
import torch


def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    xf = x.float()
    mean = xf.mean((0, 2, 3), keepdim=True)
    var = ((xf - mean) ** 2).mean((0, 2, 3), keepdim=True)
    y = (xf - mean) / torch.sqrt(var + eps) * weight.reshape(1, -1, 1, 1) + bias.reshape(1, -1, 1, 1)
    new_mean, new_var = running_mean, running_var
    if training:
        n = x.shape[0] * x.shape[2] * x.shape[3]
        new_mean = (1 - momentum) * running_mean + momentum * mean.flatten()
        new_var = (1 - momentum) * running_var + momentum * var.flatten() * n / (n - 1)
    return y.to(x.dtype), new_mean, new_var
