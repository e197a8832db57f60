import torch


def combined_keep_mask(pad_mask):
    T = pad_mask.shape[1]
    causal = torch.ones(T, T).tril().to(pad_mask.dtype)
    return causal[None, None] * pad_mask[:, None, None, :]   # int64/float32 out, not bool
