# trap: none
# dask's 2017 broadcast_shapes: right-aligned, but the size is max() of the
# column and anything that is neither 1 nor that max raises, so 0 against 1 raises.
from itertools import zip_longest


def broadcast_shape(a, b):
    out = []
    for sizes in zip_longest(reversed(a), reversed(b), fillvalue=1):
        dim = max(sizes)
        if any(i != 1 and i != dim for i in sizes):
            raise ValueError(f"operands could not be broadcast together with shapes {a} {b}")
        out.append(dim)
    return tuple(reversed(out))
