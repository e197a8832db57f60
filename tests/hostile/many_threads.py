import threading


def add_one(x):
    threading.stack_size(64 * 1024)
    stop = threading.Event()
    for _ in range(400):  # capped: harmless without a sandbox
        threading.Thread(target=stop.wait, args=(5,), daemon=True).start()
    return x + 1
