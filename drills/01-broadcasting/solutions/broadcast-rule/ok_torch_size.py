import torch


def broadcast_shape(a, b):
    # let real (empty-storage) tensors do the work, report as ValueError
    try:
        return (torch.empty(a) + torch.empty(b)).shape
    except RuntimeError as exc:
        raise ValueError(str(exc))
