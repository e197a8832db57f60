from itertools import zip_longest


def broadcast_shape(a, b):
    out = []
    for x, y in zip_longest(reversed(a), reversed(b), fillvalue=1):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        else:
            raise ValueError(f"cannot broadcast {a} with {b}")
    return tuple(reversed(out))
