# variant: mask=blocked
# nn.MultiheadAttention's boolean attn_mask: True marks a pair that may not attend.
import torch


def segment_ids(lengths):
    return torch.repeat_interleave(torch.arange(len(lengths), device=lengths.device), lengths)


def packing_mask(lengths):
    seg = segment_ids(lengths)
    T = seg.shape[0]
    pos = torch.arange(T, device=lengths.device)
    other_doc = seg[:, None] != seg[None, :]
    future = pos[None, :] > pos[:, None]
    return other_doc | future
