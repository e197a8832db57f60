# trap: no-raise-right-sizes
def broadcast_shape(a, b):
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    return tuple(x if x != 1 else y for x, y in zip(a, b))
