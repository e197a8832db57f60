import time


def add_one(x):
    time.sleep(30)
    return x + 1
