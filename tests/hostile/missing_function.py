def add_on(x):
    return x + 1
