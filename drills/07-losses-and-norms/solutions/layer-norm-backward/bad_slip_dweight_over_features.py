# trap: none
# dweight and dbias summed over dim 1 (the features) instead of dim 0 (the rows).
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    xf, dyf = x.float(), dy.float()
    mean = xf.mean(-1, keepdim=True)
    rstd = torch.rsqrt(xf.var(-1, unbiased=False, keepdim=True) + eps)
    xhat = (xf - mean) * rstd
    g = dyf * weight.float()
    dx = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
    return dx.to(dy.dtype), (dyf * xhat).sum(1).to(dy.dtype), dyf.sum(1).to(dy.dtype)
