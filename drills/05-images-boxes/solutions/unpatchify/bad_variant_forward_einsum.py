# trap: wrong-inverse-permutation
# variant: content=ppc
import torch


def unpatchify(tokens, C, H, W, P):
    B = tokens.shape[0]
    x = tokens.reshape(B, H // P, W // P, P, P, C)
    x = torch.einsum("nchpwq->nhwpqc", x)  # MAE's patchify einsum, not its inverse
    return x.reshape(B, C, H, W)
