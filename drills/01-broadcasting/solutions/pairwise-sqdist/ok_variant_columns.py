# variant: points=columns
# one point per column: the norms are column sums and the cross term is A.T @ B
def pairwise_sq_dists(A, B):
    a2 = (A * A).sum(0)[:, None]  # (N, 1)
    b2 = (B * B).sum(0)[None, :]  # (1, M)
    d2 = a2 + b2 - 2 * (A.T @ B)  # (N, M)
    return d2.clamp_min(0)
