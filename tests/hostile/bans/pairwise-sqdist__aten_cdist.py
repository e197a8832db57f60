# kernel: aten::cdist
import torch


def pairwise_sq_dists(A, B):
    return torch.ops.aten.cdist(A, B, 2.0, 2) ** 2  # compute mode 2: no matmul shortcut
