# trap: no-raise  (aligns from the right with zip_longest, but takes the max on every axis and never raises)
from itertools import zip_longest


def broadcast_shape(a, b):
    out = [max(x, y) for x, y in zip_longest(reversed(a), reversed(b), fillvalue=1)]
    return tuple(reversed(out))
