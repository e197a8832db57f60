import time

import torch


def add_one(x):
    hold = []
    for _ in range(64):  # touches up to 2 GiB, slowly, so the resident-size watchdog sees it
        hold.append(torch.ones(8 * 2**20))
        time.sleep(0.01)
    return x + 1
