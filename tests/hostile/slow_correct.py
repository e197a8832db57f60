import time


def add_one(x):
    time.sleep(0.3)  # three cases: about 1 s in all, each well within its deadline
    return x + 1
