# device: mixes CPU tensors with the inputs (correct on a CPU, an error on a GPU)
import torch


def combined_keep_mask(pad_mask):
    T = pad_mask.shape[-1]
    pos = torch.arange(T)
    causal = pos[None, :] <= pos[:, None]          # (T, T): key <= query
    real = (pad_mask != 0).unsqueeze(1).unsqueeze(2)  # (B, 1, 1, T)
    return torch.logical_and(causal, real)
