import torch


def pairwise_sq_dists(A, B):
    # one row of A at a time: an (M, d) temporary, never (N, M, d)
    out = A.new_empty(A.shape[0], B.shape[0])
    for i in range(A.shape[0]):
        diff = B - A[i]  # (M, d)
        out[i] = (diff * diff).sum(-1)
    return out
