def add_one(x):
    while True:
        pass
