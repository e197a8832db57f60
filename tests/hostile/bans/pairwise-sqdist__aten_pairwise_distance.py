# kernel: aten::pairwise_distance
import torch


def pairwise_sq_dists(A, B):
    return torch.ops.aten.pairwise_distance(A[:, None, :], B[None, :, :], 2.0, 0.0) ** 2
