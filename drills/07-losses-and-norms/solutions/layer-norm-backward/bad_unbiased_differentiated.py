# trap: unbiased-variance  (a forward with x.var(-1), differentiated through correctly: the last term over d - 1)
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    d = x.shape[-1]
    xf, dyf = x.double(), dy.double()
    c = xf - xf.mean(-1, keepdim=True)
    D = torch.sqrt(xf.var(-1, keepdim=True) + eps)
    g = dyf * weight.double()
    dx = (g - g.mean(-1, keepdim=True)) / D - c * (g * c).sum(-1, keepdim=True) / ((d - 1) * D**3)
    return dx.to(dy.dtype), (dyf * c / D).sum(0).to(dy.dtype), dyf.sum(0).to(dy.dtype)
