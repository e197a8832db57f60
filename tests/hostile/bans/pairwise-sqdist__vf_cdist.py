# kernel: aten::cdist
import torch


def pairwise_sq_dists(A, B):
    return torch._VF.cdist(A, B, 2.0, 2) ** 2
