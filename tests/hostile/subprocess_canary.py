import os
import subprocess


def add_one(x):
    subprocess.run(["touch", os.environ.get("DRILL_CANARY", "/tmp/drill-canary")], check=True)
    return x + 1
