# trap: no-keepdim
def pairwise_sq_dists(A, B):
    return ((A ** 2).sum(1) - 2 * A @ B.T + (B ** 2).sum(1)).clamp_min(0)
