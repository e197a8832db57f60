# trap: no-mean-term  (the mean's contribution forgotten; everything in dy's dtype)
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    mu = x.mean(dim=1, keepdim=True)
    var = ((x - mu) ** 2).mean(dim=1, keepdim=True)
    rstd = (var + eps).rsqrt()
    xhat = (x - mu) * rstd
    g = dy * weight
    dx = rstd * (g - xhat * (g * xhat).mean(dim=1, keepdim=True))
    return dx, (dy * xhat).sum(dim=0), dy.sum(dim=0)
