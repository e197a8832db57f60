import os


def add_one(x):
    for fd in range(3, 1024):
        try:
            os.write(fd, b"garbage that is not a frame")
        except OSError:
            pass
    return x + 1
