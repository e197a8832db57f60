import torch


def pairwise_sq_dists(A, B):
    # as sentence-transformers computes it: stack A over B, one (N+M, N+M) distance matrix, keep the A-B block
    N = A.shape[0]
    X = torch.cat([A, B]).float()
    sq = (X * X).sum(1)
    d2 = sq[:, None] + sq[None, :] - 2 * X @ X.T
    return d2[:N, N:].clamp_min(0).to(A.dtype)
