from torch import broadcast_shapes as bs


def broadcast_shape(a, b):
    try:
        return tuple(bs(a, b))
    except RuntimeError as exc:
        raise ValueError(str(exc))
