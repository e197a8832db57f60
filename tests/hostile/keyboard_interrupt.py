def add_one(x):
    raise KeyboardInterrupt
