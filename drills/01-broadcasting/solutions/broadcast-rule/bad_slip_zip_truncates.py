# trap: none
# Right-aligns with zip(reversed(...)), forgetting that zip stops at the shorter
# shape: the extra leading axes of the longer shape are lost.
def broadcast_shape(a, b):
    out = []
    for x, y in zip(reversed(a), reversed(b)):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise ValueError(f"{x} against {y}")
    return tuple(reversed(out))
