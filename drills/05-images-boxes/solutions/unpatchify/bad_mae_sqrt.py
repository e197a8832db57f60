# trap: none  (a square grid, and MAE's (P, P, C) token layout instead of the contract's (C, P, P): two differences)
# partial: square-grid
import torch


def unpatchify(tokens, C, H, W, P):
    h = w = int(tokens.shape[1] ** 0.5)
    x = tokens.reshape(tokens.shape[0], h, w, P, P, C)
    x = torch.einsum("nhwpqc->nchpwq", x)
    return x.reshape(tokens.shape[0], C, h * P, w * P)
