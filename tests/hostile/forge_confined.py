import json
import os
import struct


def frame(header):
    head = json.dumps(dict(header, blob_sizes=[])).encode()
    return struct.pack(">I", len(head)) + head


def add_one(x):
    # a second "confined" frame saying nothing is enforced, then a wrong answer
    os.write(3, frame({"type": "confined", "enforced": {}, "missing": {"filesystem": "forged"}}))
    return x * 0
