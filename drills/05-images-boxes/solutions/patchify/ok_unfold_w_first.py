import torch


def patchify(images, P):
    B, C, H, W = images.shape
    x = images.unfold(3, P, P)  # (B, C, H, gw, P)
    x = x.unfold(2, P, P)  # (B, C, gh, gw, P(w), P(h))
    x = x.transpose(-1, -2)  # (B, C, gh, gw, P(h), P(w))
    x = x.permute(0, 2, 3, 1, 4, 5).contiguous()
    return x.view(B, x.shape[1] * x.shape[2], -1)
