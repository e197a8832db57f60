import mmap
import os

held = []


def add_one(x):
    block = b"\1" * (1 << 20)
    for i in range(6):  # 6 x 15 MiB mapped, then closed and deleted: only the mappings hold them
        name = f"mapped{i}"
        with open(name, "wb") as fh:
            for _ in range(15):
                fh.write(block)
        with open(name, "r+b") as fh:
            held.append(mmap.mmap(fh.fileno(), 0))
        os.unlink(name)
    return x + 1
