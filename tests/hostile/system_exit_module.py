raise SystemExit(0)


def add_one(x):
    return x + 1
