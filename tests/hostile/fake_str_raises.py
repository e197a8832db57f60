class Oops(Exception):
    def __str__(self):
        raise RuntimeError("no message for you")


def pairwise_sq_dists(A, B):
    if type(A).__name__ == "FakeTensor":
        raise Oops()
    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
