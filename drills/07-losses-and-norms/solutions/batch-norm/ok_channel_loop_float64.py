import torch


def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    C = x.shape[1]
    y = torch.empty_like(x)
    new_mean = running_mean.clone()
    new_var = running_var.clone()
    for c in range(C):
        xc = x[:, c].double()
        if training:
            m = xc.mean()
            v = ((xc - m) ** 2).mean()
            n = xc.numel()
            new_mean[c] = (1 - momentum) * running_mean[c] + momentum * m
            new_var[c] = (1 - momentum) * running_var[c] + momentum * v * n / (n - 1)
        else:
            m, v = running_mean[c].double(), running_var[c].double()
        y[:, c] = ((xc - m) / torch.sqrt(v + eps) * weight[c] + bias[c]).to(x.dtype)
    return y, new_mean, new_var
