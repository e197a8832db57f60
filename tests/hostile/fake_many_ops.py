def pairwise_sq_dists(A, B):
    x = A[:1, :1]
    for _ in range(3100):
        x = x + 0
    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
