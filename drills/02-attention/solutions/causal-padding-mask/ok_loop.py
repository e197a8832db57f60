import torch


def combined_keep_mask(pad_mask):
    B, T = pad_mask.shape
    out = torch.zeros(B, 1, T, T, dtype=torch.bool)
    for b in range(B):
        for i in range(T):
            for j in range(i + 1):
                if pad_mask[b, j] != 0:
                    out[b, 0, i, j] = True
    return out
