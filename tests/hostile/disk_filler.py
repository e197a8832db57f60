import os


def add_one(x):
    chunk = b"x" * (1 << 20)
    for i in range(2048):  # 2 GB in 1 MB files: capped even without a sandbox
        with open(f"fill-{i}.bin", "wb") as fh:
            fh.write(chunk)
    for i in range(2048):
        os.remove(f"fill-{i}.bin")
    return x + 1
