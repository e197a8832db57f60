"""Time `drill validate` over every drill (issue: 60 s or less on 2 cores).

Prints the wall time of one full `drill validate` run in a fresh process
(including the torch import), repeated a few times, with the median, and the
in-process time per drill from one warm run.

    python bench/validate_time.py [--runs 3]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def full_runs(runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "trainer", "validate", "--quiet"], capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            print(proc.stdout + proc.stderr)
            raise SystemExit(f"drill validate failed (exit {proc.returncode})")
    return times


def per_drill() -> list[tuple[str, float]]:
    from grader.engine import Grader
    from grader.authoring.validation import validate_drill

    grader = Grader()
    out = []
    for spec in grader.catalogue.specs.values():
        t0 = time.perf_counter()
        validate_drill(grader, spec, 1)
        out.append((spec.id, time.perf_counter() - t0))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    times = full_runs(args.runs)
    print(f"drill validate (fresh process, all drills): median {statistics.median(times):.1f} s "
          f"over {len(times)} runs (min {min(times):.1f}, max {max(times):.1f})")
    rows = per_drill()
    total = sum(t for _, t in rows)
    median = statistics.median(t for _, t in rows)
    print(f"in-process, warm: {len(rows)} drills in {total:.1f} s; median {median:.2f} s per drill")
    for drill, t in sorted(rows, key=lambda r: -r[1])[:5]:
        print(f"  slowest: {drill:<22} {t:.2f} s")


if __name__ == "__main__":
    main()
