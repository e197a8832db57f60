def add_one(x):
    return x + float("nan")
