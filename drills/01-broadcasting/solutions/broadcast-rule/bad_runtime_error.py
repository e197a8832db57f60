# trap: runtime-error-escapes
import torch


def broadcast_shape(a, b):
    # lets torch's RuntimeError escape instead of raising ValueError
    return tuple((torch.empty(a) + torch.empty(b)).shape)
