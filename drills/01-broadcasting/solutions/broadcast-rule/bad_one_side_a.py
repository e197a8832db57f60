# trap: one-side-stretch-a
def broadcast_shape(a, b):
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + list(a)
    b = [1] * (n - len(b)) + list(b)
    out = []
    for x, y in zip(a, b):
        if x == 1 or x == y:  # only a's ones stretch
            out.append(y)
        else:
            raise ValueError("incompatible")
    return tuple(out)
