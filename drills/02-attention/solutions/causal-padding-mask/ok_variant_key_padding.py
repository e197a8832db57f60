# variant: mask=pad
# nn.Transformer's src_key_padding_mask convention: True marks a padded token.
import torch


def combined_keep_mask(pad_mask):
    B, T = pad_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool, device=pad_mask.device).tril()
    real = ~pad_mask.bool()  # True on real tokens
    return causal[None, None] & real[:, None, None, :]
