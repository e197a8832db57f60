# trap: none
# dx pushed back from dy itself, forgetting that y was multiplied by weight (g = dy, not dy * weight).
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    xf, g = x.float(), dy.float()
    mean = xf.mean(-1, keepdim=True)
    rstd = torch.rsqrt(xf.var(-1, unbiased=False, keepdim=True) + eps)
    xhat = (xf - mean) * rstd
    dx = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
    return dx.to(dy.dtype), (g * xhat).sum(0).to(dy.dtype), g.sum(0).to(dy.dtype)
