# trap: no-clamp
# variant: points=columns
def pairwise_sq_dists(A, B):
    a2 = (A * A).sum(0)[:, None]
    b2 = (B * B).sum(0)[None, :]
    return a2 + b2 - 2 * (A.T @ B)
