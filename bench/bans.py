"""What the dispatcher bans cost, per banned drill.

    python bench/bans.py [--runs 20]

Prints, for every drill with `banned:`:
- derive: finding the banned kernels (grader.bans.trace: oracles and reference
  traced under the profiler) and torch's Python implementations of them,
  paid once per drill per grading process;
- install: registering the refusing kernels and guarding torch's Python
  implementations (grader.bans.dispatch.install), paid by each sandbox child
  (a standby child pays it before the submission arrives);
- check: one tamper check (dispatch_bans.tampered), paid twice per submission.
Install and check are medians over forked children (each forks from a clean process).
"""
from __future__ import annotations

import argparse
import os
import statistics
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def in_child(kernels: dict[str, str]) -> tuple[float, float]:
    """(install seconds, check seconds) measured in a forked child."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            from grader.bans import dispatch as dispatch_bans

            t0 = time.perf_counter()
            dispatch_bans.install(kernels, lambda name: None)
            t1 = time.perf_counter()
            assert dispatch_bans.tampered() is None
            t2 = time.perf_counter()
            os.write(w, struct.pack("dd", t1 - t0, t2 - t1))
        finally:
            os._exit(0)
    os.close(w)
    data = os.read(r, 16)
    os.close(r)
    os.waitpid(pid, 0)
    return struct.unpack("dd", data)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    from grader.bans import trace as ban_trace
    from grader.bans import dispatch as dispatch_bans
    from grader.engine import Grader

    grader = Grader()
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; medians of {args.runs} children")
    print(f"{'drill':18} {'kernels':>7} {'derive':>9} {'install':>9} {'check':>9}")
    for spec in sorted(grader.catalogue.specs.values(), key=lambda s: s.id):
        if not spec.banned:
            continue
        prep = grader.prepared(spec, 7)
        t0 = time.perf_counter()
        kernels = ban_trace.derive(prep)
        dispatch_bans.python_routes(tuple(sorted(kernels.items())))  # as ban_trace.kernels does
        derive = time.perf_counter() - t0
        runs = [in_child(kernels) for _ in range(args.runs)]
        install = statistics.median(r[0] for r in runs)
        check = statistics.median(r[1] for r in runs)
        print(f"{spec.id:18} {len(kernels):7d} {derive * 1000:7.1f} ms {install * 1000:6.2f} ms {check * 1000:6.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
