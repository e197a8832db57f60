# kernel: aten::_cdist_forward
import torch


def pairwise_sq_dists(A, B):
    return torch.ops.aten._cdist_forward(A, B, 2.0, 2) ** 2
