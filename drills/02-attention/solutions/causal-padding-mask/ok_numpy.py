import numpy as np
import torch


def combined_keep_mask(pad_mask):
    m = pad_mask.numpy().astype(bool)                 # (B, T)
    T = m.shape[1]
    causal = np.tril(np.ones((T, T), dtype=bool))     # (T, T)
    keep = causal[None, None, :, :] & m[:, None, None, :]
    return torch.from_numpy(keep)
