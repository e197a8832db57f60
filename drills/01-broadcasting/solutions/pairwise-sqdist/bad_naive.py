# trap: naive-broadcast
def pairwise_sq_dists(A, B):
    diff = A[:, None, :] - B[None, :, :]  # (N, M, d)
    return (diff ** 2).sum(-1)
