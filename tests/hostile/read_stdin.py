def add_one(x):
    line = input("size? ")
    return x + int(line)
