# trap: unbiased-variance
# torch.var_mean with its default correction (d - 1).
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    var, mean = torch.var_mean(x.float(), dim=-1, keepdim=True)
    rstd = torch.rsqrt(var + eps)
    xhat = (x.float() - mean) * rstd
    g = dy.float() * weight.float()
    dx = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
    return dx.to(dy.dtype), (dy.float() * xhat).sum(0).to(dy.dtype), dy.float().sum(0).to(dy.dtype)
