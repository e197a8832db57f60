import json
import os
import struct


def add_one(x):
    value = {"t": "none"}
    for _ in range(30):  # the child never nests a result more than 5 deep
        value = {"t": "tuple", "items": [value]}
    head = json.dumps({"type": "result", "call": 0, "status": "ok", "value": value, "blob_sizes": []}).encode()
    os.write(3, struct.pack(">I", len(head)) + head)
    return x + 1
