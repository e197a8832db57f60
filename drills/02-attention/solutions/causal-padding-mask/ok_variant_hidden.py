# variant: out=hide
# nn.MultiheadAttention's boolean attn_mask: True where a query may NOT read a key.
import torch


def combined_keep_mask(pad_mask):
    T = pad_mask.shape[-1]
    pos = torch.arange(T, device=pad_mask.device)
    future = pos[None, :] > pos[:, None]  # (T, T): key after the query
    padded = (pad_mask == 0)[:, None, None, :]  # (B, 1, 1, T)
    return future | padded
