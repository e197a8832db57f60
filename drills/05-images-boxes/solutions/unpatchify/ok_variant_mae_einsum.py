# variant: content=ppc
# MAE's unpatchify, with the grid sides taken from H and W instead of sqrt(N).
import torch


def unpatchify(tokens, C, H, W, P):
    B = tokens.shape[0]
    h, w = H // P, W // P
    x = tokens.reshape(B, h, w, P, P, C)
    x = torch.einsum("nhwpqc->nchpwq", x)  # (B, C, h, P, w, P)
    return x.reshape(B, C, H, W)
