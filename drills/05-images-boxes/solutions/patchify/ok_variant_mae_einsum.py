# variant: content=ppc
# MAE's patchify: split both spatial axes, then einsum the channel axis to the end of each token.
import torch


def patchify(images, P):
    B, C, H, W = images.shape
    h, w = H // P, W // P
    x = images.reshape(B, C, h, P, w, P)
    x = torch.einsum("nchpwq->nhwpqc", x)  # (B, h, w, P, P, C)
    return x.reshape(B, h * w, P * P * C)
