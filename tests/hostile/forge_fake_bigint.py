"""As forge_fake_empty.py, with a well-formed fake-tensor report whose peak and culprit are 400-digit integers."""
import os, sys


def pairwise_sq_dists(A, B):
    value = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    job = sys._getframe(1).f_locals.get("job")
    index = sys._getframe(1).f_locals.get("index")
    if job is not None and index == job.calls[-1][0]:
        from grader import transport
        from grader.sandbox.wire import _send
        blobs = []
        desc = transport.encode(value, blobs)
        _send({"type": "result", "call": index, "status": "ok", "value": desc, "modified": [], "seconds": 0.001}, blobs)
        _send({"type": "start", "call": 1_000_000})
        _send({"type": "fake", "runs": RUNS})
        if job.gradient:  # the gradient case comes after the fake-tensor runs: the child's own, run as it runs it
            import torch
            from grader.sandbox.child import _run_gradient
            _run_gradient(job, sys.modules[__name__], torch)
        _send({"type": "done"})
        os._exit(0)
    return value

RUNS = [{"function": "pairwise_sq_dists", "runs": [{"sizes": "scale", "device": "cuda", "status": "ok", "outputs": [{"shape": [2000, 1500], "dtype": "float32", "device": "cuda:0"}], "peak": 10**400, "culprit": [2000, 10**400, "float32", 10**400], "ops": 1, "unknown_bytes": False, "upper_bound": False}]}]
