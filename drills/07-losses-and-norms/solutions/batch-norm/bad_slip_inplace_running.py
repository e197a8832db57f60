# trap: none
# nn.BatchNorm's habit: the running buffers updated in place (modifies its inputs).
import torch


def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    xf = x.float()
    if training:
        var, mean = torch.var_mean(xf, dim=(0, 2, 3), correction=0)
        n = x.numel() // x.shape[1]
        running_mean.mul_(1 - momentum).add_(momentum * mean)
        running_var.mul_(1 - momentum).add_(momentum * var * n / (n - 1))
    else:
        mean, var = running_mean.clone(), running_var.clone()
    y = (xf - mean[:, None, None]) / torch.sqrt(var[:, None, None] + eps)
    return (y * weight[:, None, None] + bias[:, None, None]).to(x.dtype), running_mean, running_var
