# trap: torch-convention
# variant: eps=annotated
# F.layer_norm's backward, memorised, for the Annotated Transformer's std + eps forward.
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    xf, dyf = x.float(), dy.float()
    mean = xf.mean(-1, keepdim=True)
    rstd = torch.rsqrt(xf.var(-1, unbiased=False, keepdim=True) + eps)
    xhat = (xf - mean) * rstd
    g = dyf * weight.float()
    dx = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
    return dx.to(dy.dtype), (dyf * xhat).sum(0).to(dy.dtype), dyf.sum(0).to(dy.dtype)
