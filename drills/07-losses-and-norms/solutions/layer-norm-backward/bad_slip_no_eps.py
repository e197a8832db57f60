# trap: none
# eps dropped from the backward: rstd = 1 / std (shows at eps = 0.1, and is inf on a constant row).
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    xf, dyf = x.float(), dy.float()
    mean = xf.mean(-1, keepdim=True)
    rstd = 1.0 / xf.std(-1, unbiased=False, keepdim=True)
    xhat = (xf - mean) * rstd
    g = dyf * weight.float()
    dx = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
    return dx.to(dy.dtype), (dyf * xhat).sum(0).to(dy.dtype), dyf.sum(0).to(dy.dtype)
