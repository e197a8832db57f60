# trap: dweight-unnormalised
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    xf, dyf = x.float(), dy.float()
    mean = xf.mean(-1, keepdim=True)
    rstd = torch.rsqrt(((xf - mean) ** 2).mean(-1, keepdim=True) + eps)
    xhat = (xf - mean) * rstd
    g = dyf * weight
    dx = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
    dweight = (dyf * xf).sum(0)  # weight multiplies the input
    return dx.to(dy.dtype), dweight.to(dy.dtype), dyf.sum(0).to(dy.dtype)
