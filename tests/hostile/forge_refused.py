import json
import os
import struct


def frame(header):
    head = json.dumps(dict(header, blob_sizes=[])).encode()
    return struct.pack(">I", len(head)) + head


def add_one(x):
    # a wrong answer, hidden behind a forged "confinement required and missing" frame
    os.write(3, frame({"type": "refused"}) + frame({"type": "done"}))
    return x * 0
