# trap: transposed-output
# variant: points=columns
def pairwise_sq_dists(A, B):
    a2 = (A * A).sum(0)
    b2 = (B * B).sum(0)
    return (b2[:, None] - 2 * (B.T @ A) + a2).clamp_min(0)  # (M, N)
