import time


def add_one(x):
    time.sleep(0.8)  # each case under the per-case limit, all of them over the total
    return x + 1
