import sys


def add_one(x):
    chunk = "x" * (1 << 20)
    for _ in range(1024):  # 1 GB
        sys.stdout.write(chunk)
    return x + 1
