# Channels to the front, everything else flattened: (C, B*H*W), then per-row statistics.
import torch


def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    B, C, H, W = x.shape
    flat = x.transpose(0, 1).reshape(C, -1).float()  # (C, n)
    if training:
        n = flat.shape[1]
        mean = flat.mean(1)
        var_unbiased = flat.var(1)  # n - 1
        var = var_unbiased * (n - 1) / n
        new_mean = running_mean.mul(1 - momentum).add(mean, alpha=momentum)
        new_var = running_var.mul(1 - momentum).add(var_unbiased, alpha=momentum)
    else:
        mean, var = running_mean, running_var
        new_mean, new_var = running_mean.clone(), running_var.clone()
    scale = weight / torch.sqrt(var + eps)  # (C,)
    y = (flat - mean[:, None]) * scale[:, None] + bias[:, None]
    return y.reshape(C, B, H, W).transpose(0, 1).to(x.dtype), new_mean, new_var
