# variant: layout=tbd
# fairseq's encoder_out is (T, B, C); its padding mask stays (B, T).
import torch


def masked_mean(x, mask):
    m = mask.t().to(x.dtype)[:, :, None]  # (T, B, 1)
    return (x * m).sum(dim=0) / m.sum(dim=0).clamp_min(1)
