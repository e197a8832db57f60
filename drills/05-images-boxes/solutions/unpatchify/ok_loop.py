import torch


def unpatchify(tokens, C, H, W, P):
    B, N, D = tokens.shape
    out = tokens.new_zeros(B, C, H, W)
    gw = W // P
    for n in range(N):
        i, j = divmod(n, gw)
        out[:, :, i * P:(i + 1) * P, j * P:(j + 1) * P] = tokens[:, n].reshape(B, C, P, P)
    return out
