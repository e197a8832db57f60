import os


def add_one(x):
    os.system(f"echo escaped > {os.environ.get('DRILL_CANARY', '/tmp/drill-canary')}")
    return x + 1
