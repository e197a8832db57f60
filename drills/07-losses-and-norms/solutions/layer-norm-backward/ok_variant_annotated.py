# variant: eps=annotated
# The Annotated Transformer's LayerNorm: a_2 * (x - mean) / (std + eps) + b_2, x.std(-1) unbiased.
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    d = x.shape[-1]
    xf, dyf = x.float(), dy.float()
    c = xf - xf.mean(-1, keepdim=True)
    std = c.pow(2).sum(-1, keepdim=True).div(d - 1).sqrt()
    D = std + eps
    g = dyf * weight.float()
    # d std / d c_j = c_j / ((d - 1) std); on a constant row c is 0 and so is the term
    coef = (g * c).sum(-1, keepdim=True) / ((d - 1) * std.clamp_min(1e-12) * D**2)
    dx = (g - g.mean(-1, keepdim=True)) / D - c * coef
    dweight = (dyf * c / D).sum(0)
    return dx.to(dy.dtype), dweight.to(dy.dtype), dyf.sum(0).to(dy.dtype)
