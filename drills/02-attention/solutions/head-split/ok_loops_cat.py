import torch


def split_heads(x, H: int):
    d = x.shape[-1]
    dh = d // H
    heads = [x[:, :, h * dh:(h + 1) * dh] for h in range(H)]  # H x (B, T, dh)
    return torch.stack(heads, dim=1)  # (B, H, T, dh)


def merge_heads(x):
    return torch.cat([x[:, h] for h in range(x.shape[1])], dim=-1)  # (B, T, H*dh)
