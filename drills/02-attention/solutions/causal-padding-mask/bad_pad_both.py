# trap: padding-both-axes
import torch


def combined_keep_mask(pad_mask):
    m = pad_mask.bool()
    T = m.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    pair = m[:, :, None] & m[:, None, :]       # (B, T, T): both query and key real
    return (causal & pair)[:, None]
