import sys

sys.setrecursionlimit(10**9)


def deeper(n):
    return list(map(deeper, [n + 1]))  # through C, so the C stack overflows


def add_one(x):
    return x + deeper(0)
