# trap: none
# A loop that writes each patch into torch.zeros(...), float32 by default: fp16 in, fp32 out.
import torch


def unpatchify(tokens, C, H, W, P):
    B, N, _ = tokens.shape
    gw = W // P
    out = torch.zeros(B, C, H, W)
    for n in range(N):
        i, j = divmod(n, gw)
        out[:, :, i * P:(i + 1) * P, j * P:(j + 1) * P] = tokens[:, n].reshape(B, C, P, P)
    return out
