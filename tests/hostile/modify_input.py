def add_one(x):
    x += 1
    return x
