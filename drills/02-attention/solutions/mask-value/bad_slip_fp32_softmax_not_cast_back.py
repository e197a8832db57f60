# trap: none
# Upcasts to float32 for a stable softmax and forgets to cast back: fp16 in, fp32 out.
import torch


def masked_softmax(scores, keep):
    s = scores.float().masked_fill(keep == 0, torch.finfo(torch.float32).min)
    return torch.softmax(s, dim=-1)
