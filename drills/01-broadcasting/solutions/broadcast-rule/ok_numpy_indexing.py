import numpy as np


def broadcast_shape(a, b):
    n = max(len(a), len(b))
    pa = np.array([1] * (n - len(a)) + list(a), dtype=np.int64)
    pb = np.array([1] * (n - len(b)) + list(b), dtype=np.int64)
    ok = (pa == pb) | (pa == 1) | (pb == 1)
    if not ok.all():
        raise ValueError("shapes do not broadcast")
    out = np.where(pa == 1, pb, pa)
    return tuple(int(v) for v in out)
