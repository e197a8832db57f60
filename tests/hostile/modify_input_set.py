def add_one(x):
    x.set_(x + 1)  # in place, without writing to x's memory
    return x
