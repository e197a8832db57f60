import torch


def patchify(images, P):
    B, C, H, W = images.shape
    x = images.unfold(2, P, P).unfold(3, P, P)  # (B, C, H/P, W/P, P, P)
    x = x.permute(0, 2, 3, 1, 4, 5)  # (B, H/P, W/P, C, P, P)
    return x.reshape(B, -1, C * P * P)
