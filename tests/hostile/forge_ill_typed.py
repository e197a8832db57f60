import json
import os
import struct


def frame(header):
    head = json.dumps(dict(header, blob_sizes=[])).encode()
    return struct.pack(">I", len(head)) + head


def add_one(x):
    # a result for this very call, every field of the wrong type
    os.write(3, frame({"type": "result", "call": "0", "status": "raised",
                       "exc": {"type": ["x"], "message": {"a": 1}, "line": "two", "mro": 5}}))
    return x + 1
