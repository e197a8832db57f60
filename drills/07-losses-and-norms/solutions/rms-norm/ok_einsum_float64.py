import torch


def rms_norm(x, weight, eps=1e-6):
    xd = x.double()
    ms = torch.einsum("btd,btd->bt", xd, xd) / x.shape[-1]  # (B, T)
    xhat = xd / torch.sqrt(ms + eps)[..., None]
    return xhat.to(x.dtype) * weight
