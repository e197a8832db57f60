import os


def _attempts():
    home = os.environ["DRILL_HOME"]
    target = os.path.join(home, "progress.db")
    canary = os.environ.get("DRILL_CANARY", "/tmp/drill-canary")
    yield lambda: os.link(target, "linked.db")  # a hard link into the scratch folder, then write it
    yield lambda: open("linked.db", "ab").write(b"corrupted")
    yield lambda: os.symlink(target, "via-symlink")
    yield lambda: open("via-symlink", "ab").write(b"corrupted")
    yield lambda: os.rename(target, "stolen.db")
    yield lambda: os.truncate(target, 0)
    yield lambda: os.chmod(target, 0)
    yield lambda: os.utime(target, (0, 0))
    yield lambda: os.unlink(target)
    yield lambda: os.mkfifo(canary)
    yield lambda: os.mknod(canary)
    for fd in os.listdir(f"/proc/{os.getppid()}/fd"):
        yield lambda fd=fd: open(f"/proc/{os.getppid()}/fd/{fd}", "ab").write(b"corrupted")
    yield lambda: open(f"/proc/{os.getppid()}/mem", "wb")


def add_one(x):
    done = []
    for attempt in _attempts():
        try:
            attempt()
            done.append(attempt)
        except (OSError, ValueError):
            pass
    return x + 1
