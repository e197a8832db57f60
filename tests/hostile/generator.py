def add_one(x):
    return (v + 1 for v in x)
