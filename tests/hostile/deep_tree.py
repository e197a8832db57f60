import os

built = []


def add_one(x):
    if not built:
        for _ in range(1500):  # a scratch tree deeper than a recursive rmtree can go
            os.mkdir("d")
            os.chdir("d")
        built.append(True)
    return x + 1
