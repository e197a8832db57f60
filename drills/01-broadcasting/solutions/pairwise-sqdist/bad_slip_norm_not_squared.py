# trap: none
# The expansion with .norm() where the squared norm belongs: |a| - 2 a.b + |b|.
import torch


def pairwise_sq_dists(A, B):
    a2 = A.norm(dim=1, keepdim=True)  # (N, 1), not squared
    b2 = B.norm(dim=1)  # (M,)
    return (a2 - 2 * A @ B.T + b2).clamp_min(0)
