"""Time `drill validate` over every drill and every variant value (issue: 20 s or less on 2 cores,
in a fresh process).

Prints the wall time of full `drill validate` runs in a fresh process (torch import included),
with the median, the CPU time they used (this process's children: validate and its sandbox
children), and, from one in-process run with one job, the slowest drills with their sandbox runs.
Each timed run gets a DRILL_HOME of its own twice: a new, empty one (cold: the catalogue parsed,
no timing hint), then the same one again (warm: the catalogue cache and the seconds the cold run
kept, trainer/validate_seconds.py, which only order the drills). On a shared machine the wall
time follows the load; the CPU time is what the work costs.

    python bench/validate_time.py [--runs 3] [--jobs 2] [--drills ID,ID]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def full_runs(runs: int, jobs: int, paths: list[str]) -> dict[str, list[tuple[float, float]]]:
    out: dict[str, list[tuple[float, float]]] = {"cold": [], "warm": []}
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="validate-time-") as home:
            for kind in ("cold", "warm"):
                out[kind].append(_one(jobs, paths, {**os.environ, "DRILL_HOME": home}))
    return out


def _one(jobs: int, paths: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = os.times()
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "trainer", "validate", "--quiet", "--jobs", str(jobs), *paths],
                          capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = os.times()
    cpu = (after.children_user + after.children_system) - (before.children_user + before.children_system)
    if proc.returncode != 0:
        print(proc.stdout + proc.stderr)
        raise SystemExit(f"drill validate failed (exit {proc.returncode})")
    return wall, cpu


def per_drill(ids: list[str]) -> list[tuple[str, float, int]]:
    import torch

    from grader.engine import Grader
    from grader.sandbox import quiet

    torch.set_num_threads(1)  # as validate's workers run (grader.authoring.proving)
    with quiet.machinery():  # torch's fake-tensor log is validate's to keep quiet, as it does
        return _per_drill(Grader(), ids)


def _per_drill(grader, ids: list[str]) -> list[tuple[str, float, int]]:  # type: ignore[no-untyped-def]
    from grader.authoring.proving import prove

    runs = [0]
    original = grader.grade_prepared

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        runs[0] += 1
        return original(*args, **kwargs)

    grader.grade_prepared = counted  # type: ignore[method-assign]
    out = []
    for spec in grader.catalogue.specs.values():
        if ids and spec.id not in ids:
            continue
        before, t0 = runs[0], time.perf_counter()
        prove(grader, spec, 1)
        out.append((spec.id, time.perf_counter() - t0, runs[0] - before))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--drills", default="", help="only these drills (comma-separated ids); default: all")
    args = parser.parse_args()
    ids = [d for d in args.drills.split(",") if d]
    paths = []
    if ids:
        from grader.catalogue import load_catalogue

        cat = load_catalogue()
        paths = [str(cat.get(d).path) for d in ids]
    what = f"{len(ids)} drills" if ids else "all drills"
    for kind, times in full_runs(args.runs, args.jobs, paths).items():
        walls = [w for w, _ in times]
        home = ("a new DRILL_HOME" if kind == "cold"
                else "the same DRILL_HOME again: catalogue cache, last run's seconds")
        print(f"drill validate --jobs {args.jobs} ({kind}: fresh process, {home}; {what}, every variant value): "
              f"median {statistics.median(walls):.1f} s wall over {len(walls)} runs (min {min(walls):.1f}, "
              f"max {max(walls):.1f}); CPU {statistics.median(c for _, c in times):.1f} s (validate and its sandbox "
              f"children), {os.cpu_count()} CPUs here, load average {os.getloadavg()[0]:.1f}")
    rows = per_drill(ids)
    total = sum(t for _, t, _ in rows)
    print(f"in-process, one job: {len(rows)} drills in {total:.1f} s; {sum(r for _, _, r in rows)} sandbox runs")
    for drill, t, r in sorted(rows, key=lambda row: -row[1])[:5]:
        print(f"  slowest: {drill:<22} {t:.2f} s ({r} sandbox runs)")


if __name__ == "__main__":
    main()
