# trap: align-left
def broadcast_shape(a, b):
    a, b = list(a), list(b)
    while len(a) < len(b):
        a.append(1)
    while len(b) < len(a):
        b.append(1)
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise ValueError("incompatible")
        out.append(y if x == 1 else x)
    return tuple(out)
