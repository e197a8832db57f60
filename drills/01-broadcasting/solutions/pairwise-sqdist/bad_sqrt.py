# trap: distances-not-squared
def pairwise_sq_dists(A, B):
    d2 = (A ** 2).sum(1, keepdim=True) - 2 * A @ B.T + (B ** 2).sum(1)
    return d2.clamp_min(0).sqrt()
