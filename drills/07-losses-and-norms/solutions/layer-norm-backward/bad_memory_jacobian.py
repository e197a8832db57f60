# Vectorised through the full per-row Jacobian (N, d, d): right values, memory that grows as N * d * d.
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    N, d = x.shape
    xf = x.float()
    c = xf - xf.mean(-1, keepdim=True)
    rstd = torch.rsqrt((c * c).mean(-1, keepdim=True) + eps)  # (N, 1)
    xhat = c * rstd
    eye = torch.eye(d, dtype=xf.dtype, device=x.device)
    J = rstd[:, :, None] * (eye - 1.0 / d - xhat[:, :, None] * xhat[:, None, :] / d)  # (N, d, d)
    g = dy.float() * weight.float()
    dx = torch.einsum("nij,ni->nj", J, g)
    return dx.to(dy.dtype), (dy.float() * xhat).sum(0).to(dy.dtype), dy.float().sum(0).to(dy.dtype)
