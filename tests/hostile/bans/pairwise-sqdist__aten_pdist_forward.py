# kernel: aten::_pdist_forward
import torch


def pairwise_sq_dists(A, B):
    N, M = A.shape[0], B.shape[0]
    flat = torch.ops.aten._pdist_forward(torch.cat([A, B]).double(), 2.0) ** 2
    n = N + M
    i = torch.arange(N)[:, None]
    j = N + torch.arange(M)[None, :]
    return flat[i * n - i * (i + 1) // 2 + (j - i - 1)].to(A.dtype)
