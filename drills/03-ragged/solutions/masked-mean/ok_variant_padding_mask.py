# variant: mask=pad
# fairseq's encoder_padding_mask: True on the pads, so the real tokens are where it is False.
import torch


def masked_mean(x, mask):
    real = (~mask.bool()).to(x.dtype)[:, :, None]  # (B, T, 1)
    return (x * real).sum(dim=1) / real.sum(dim=1).clamp_min(1)
