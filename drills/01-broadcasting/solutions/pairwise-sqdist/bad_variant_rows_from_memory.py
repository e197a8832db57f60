# trap: points-as-rows
# variant: points=columns
def pairwise_sq_dists(A, B):
    a2 = (A ** 2).sum(dim=1, keepdim=True)
    b2 = (B ** 2).sum(dim=1)
    return (a2 - 2 * A @ B.T + b2).clamp_min(0)
