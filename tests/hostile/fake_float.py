def pairwise_sq_dists(A, B):
    float(A.sum())
    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
