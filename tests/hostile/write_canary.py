import os


def add_one(x):
    with open(os.environ.get("DRILL_CANARY", "/tmp/drill-canary"), "w") as fh:
        fh.write("escaped")
    return x + 1
