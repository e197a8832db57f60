# variant: layout=nhwc content=ppc
# MAE-style (P, P, C) tokens into a channels-last image: one swap of the middle axes
import torch


def unpatchify(tokens, C, H, W, P):
    B = tokens.shape[0]
    x = tokens.reshape(B, H // P, W // P, P, P, C)
    x = torch.einsum("nhwpqc->nhpwqc", x)
    return x.reshape(B, H, W, C)
