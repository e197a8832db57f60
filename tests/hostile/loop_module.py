import torch

while True:
    pass


def add_one(x):
    return x + 1
