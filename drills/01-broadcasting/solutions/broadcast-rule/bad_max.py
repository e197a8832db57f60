# trap: max-with-zero
def broadcast_shape(a, b):
    a, b = list(a)[::-1], list(b)[::-1]
    out = []
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else 1
        y = b[i] if i < len(b) else 1
        if x != y and 1 not in (x, y):
            raise ValueError("incompatible")
        out.append(max(x, y))
    return tuple(out[::-1])
