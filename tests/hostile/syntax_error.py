def add_one(x):
    y = x + 1
    return (y
