# trap: channels-first-content
# variant: content=ppc
# the (C, P, P) order from memory, under MAE's (P, P, C) tokens
import torch


def patchify(images, P):
    B, C, H, W = images.shape
    gh, gw = H // P, W // P
    x = images.unfold(2, P, P).unfold(3, P, P)  # (B, C, gh, gw, P, P)
    x = x.permute(0, 2, 3, 1, 4, 5)  # (B, gh, gw, C, P, P)
    return x.reshape(B, gh * gw, C * P * P)
