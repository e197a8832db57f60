# trap: zeroed-then-mean  (padding zeroed with where, then a plain mean over T)
import torch


def masked_mean(x, mask):
    kept = torch.where(mask.bool()[:, :, None], x, torch.zeros((), dtype=x.dtype))
    return kept.mean(1)
