import os


def add_one(x):
    parent = os.getppid()
    blocked = 0
    for attempt in (
        lambda: os.setpriority(os.PRIO_PROCESS, parent, 19),
        lambda: os.sched_setaffinity(parent, {0}),
        lambda: os.sched_setscheduler(parent, os.SCHED_IDLE, os.sched_param(0)),
    ):
        try:
            attempt()
        except OSError:
            blocked += 1
    os.sched_setaffinity(0, os.sched_getaffinity(0))  # its own affinity is fine
    if blocked != 3:
        raise RuntimeError(f"only {blocked} of 3 were blocked")
    return x + 1
