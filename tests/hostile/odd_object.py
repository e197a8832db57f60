class Weird:
    def __getattr__(self, name):
        raise RuntimeError(name)

    def __index__(self):
        raise RuntimeError("no")


def add_one(x):
    return (x + 1, [Weird(), 10 ** 5000])
