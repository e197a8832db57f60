import json
import os
import struct


def frame(header):
    head = json.dumps(dict(header, blob_sizes=[])).encode()
    return struct.pack(">I", len(head)) + head


def add_one(x):
    os.write(3, frame({"type": "done"}))  # "finished" in the middle of a call
    return x * 0
