# trap: transposed-patch
# variant: content=ppc
import torch


def patchify(images, P):
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P)
    x = torch.einsum("nchpwq->nhwqpc", x)  # pixel column before pixel row
    return x.reshape(B, -1, P * P * C)
