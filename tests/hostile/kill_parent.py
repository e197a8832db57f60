import os
import signal


def add_one(x):
    # SIGWINCH is ignored by default, so this stays harmless even without a sandbox
    os.kill(os.getppid(), signal.SIGWINCH)
    return x + 1
