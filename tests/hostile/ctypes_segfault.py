import ctypes


def add_one(x):
    ctypes.string_at(0)
    return x + 1
