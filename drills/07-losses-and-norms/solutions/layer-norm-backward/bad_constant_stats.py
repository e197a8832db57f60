# trap: no-variance-term
# Mean subtracted, but the variance (rstd) treated as a constant.
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    xf = x.float()
    mean = xf.mean(-1, keepdim=True)
    rstd = 1.0 / torch.sqrt(xf.var(-1, unbiased=False, keepdim=True) + eps)
    xhat = (xf - mean) * rstd
    g = dy.float() * weight.float()
    dx = (g - g.mean(-1, keepdim=True)) * rstd
    return dx.to(dy.dtype), (dy.float() * xhat).sum(0).to(dy.dtype), dy.float().sum(0).to(dy.dtype)
