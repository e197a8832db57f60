"""Grading latency: worker start, cold `drill check`, warm marginal time per submission.

    python bench/latency.py [--drill mha-padding] [--runs 20] [--seed 11] [--file SOLUTION.py]

Prints:
- worker start time (WorkerClient() until the worker's hello: torch import,
  catalogue, confinement probe);
- cold `drill check ID FILE --json` (a fresh subprocess, torch imported), against a bare
  `import torch, torchvision`, and the same with `--files` copies of FILE (the cost of each extra file);
- the warm marginal time per submission with all the drill's cases (median
  of N, cases cached, a short idle gap before each as when a person edits),
  through the worker (JSON round trip included, the standby child forked
  during the gap), and in-process with a standby child and with a fresh fork:
  the verdict, which is what a person waits for (the REPL asks for the shape
  comments after it is on screen: their traced run is timed on its own);
- the floor: one bare fork of this torch-loaded process plus a pipe round trip,
  measured in the same run;
- the verdict line of a failing answer (the drill's first bad_ sample) from a standby child,
  against the same floor.
The goal: a warm verdict within GOAL_RATIO times the floor of the same run, on a
quiet machine (the ratio is printed; figures alone are too noisy to compare). `--file` grades another passing
solution instead of the reference: one whose peak at scale is more than 1.25x the
reference's is also run at the doubled sizes of the scale check (grader/fake/growth.py),
so `--drill pairwise-sqdist --file drills/01-broadcasting/solutions/pairwise-sqdist/ok_stacked.py`
against the reference shows what those runs cost.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def comments(source: str) -> bool:
    from grader.judge.shape_comments import comments as found

    return bool(found(source))


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def reference_source(drill: str) -> tuple[str, str]:
    from grader.catalogue import load_catalogue

    spec = load_catalogue().get(drill)
    return Path(spec.reference_path).read_text(encoding="utf-8"), str(spec.reference_path)


def worker_figures(drill: str, source: str, seed: int, runs: int,
                   gap: float) -> tuple[float, float, list[float], list[float]]:
    from grader.worker import WorkerClient

    t0 = time.monotonic()
    client = WorkerClient()
    client.wait_ready()
    start = time.monotonic() - t0
    try:
        t0 = time.monotonic()
        first = client.grade(drill, source, seed=seed)
        first_s = time.monotonic() - t0
        assert first.verdict == "pass", first.to_dict()
        times, later = [], []
        for _ in range(runs):
            time.sleep(gap)  # a person reads the verdict and edits; the worker forks the next child meanwhile
            t0 = time.monotonic()
            report = client.grade(drill, source, seed=seed, comments=False)  # what the REPL waits for
            times.append(time.monotonic() - t0)
            assert report.verdict == "pass", report.to_dict()
            if comments(source):  # what the REPL asks for once the verdict is on screen
                t0 = time.monotonic()
                client.shape_comments(drill, source, seed=seed)
                later.append(time.monotonic() - t0)
    finally:
        client.close()
    return start, first_s, times, later


def cold_check(drill: str, path: str, seed: int, copies: int = 1) -> tuple[float, int]:
    """A fresh `drill check --json` of `copies` copies of the file (as many files, one run)."""
    with tempfile.TemporaryDirectory(prefix="drill-bench-") as folder:
        paths = [path] if copies == 1 else [str(Path(shutil.copy(path, Path(folder) / f"copy_{k}.py")))
                                            for k in range(copies)]
        t0 = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "trainer", "check", drill, *paths, "--json", "--seed", str(seed)],
                              cwd=ROOT, capture_output=True, text=True, timeout=600)
        return time.monotonic() - t0, proc.returncode


def bare_imports() -> float:
    """A fresh interpreter importing torch and torchvision, nothing else: what a cold check cannot beat."""
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-c", "import torch, torchvision"], cwd=ROOT, check=True)
    return time.monotonic() - t0


def failing_answer(drill: str) -> tuple[str, str] | None:
    """The drill's first bad_ sample (sorted by name): a failing answer, (source, its file name)."""
    from grader.authoring.samples import files
    from grader.catalogue import load_catalogue

    bad = [p for p in files(load_catalogue().get(drill)) if p.name.startswith("bad_")]
    return (bad[0].read_text(encoding="utf-8"), bad[0].name) if bad else None


def in_process(drill: str, source: str, seed: int, runs: int, gap: float,
               failing: str | None = None) -> tuple[list[float], list[float], list[float], list[float], int]:
    """Fresh-fork and standby verdicts of `source`, the floor before each, and (with `failing`) the
    verdict of a failing answer from a standby child, each after the same idle gap."""
    from grader import sandbox
    from grader.engine import Grader

    grader = Grader()
    report = grader.grade(drill, source, "<bench>", seed)
    assert report.verdict == "pass", report.to_dict()
    if failing is not None:
        assert grader.grade(drill, failing, "<bench>", seed).verdict != "pass"
    sandbox.parent_ready()
    times, standby, floors, fails = [], [], [], []
    for _ in range(runs):
        floors.append(bare_fork_round_trip())
        t0 = time.monotonic()
        grader.grade(drill, source, "<bench>", seed, comments=False)  # a fresh fork
        times.append(time.monotonic() - t0)
        sandbox.prefork()
        time.sleep(gap)
        t0 = time.monotonic()
        grader.grade(drill, source, "<bench>", seed, comments=False)  # the standby child
        standby.append(time.monotonic() - t0)
        if failing is not None:  # the verdict line only: the smallest case and the rest follow it on screen
            sandbox.prefork()
            time.sleep(gap)
            t0 = time.monotonic()
            grader.grade(drill, failing, "<bench>", seed, comments=False)
            fails.append(time.monotonic() - t0)
    sandbox.STANDBY.discard()
    return times, standby, fails, floors, report.total


def bare_fork_round_trip() -> float:
    """Fork this (torch-loaded) process; the child writes one byte; the parent reads it."""
    r, w = os.pipe()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.write(w, b"x")
        os._exit(0)
    os.read(r, 1)
    elapsed = time.monotonic() - t0
    os.close(r)
    os.close(w)
    os.waitpid(pid, 0)
    return elapsed


GOAL_RATIO = 1.5  # warm verdict against the bare fork + pipe floor measured in the same run
FAILING_RATIO = 2.0  # a failing answer's verdict line against the same floor
COLD_GOAL = 1.2  # cold `drill check` against a bare `import torch, torchvision`
FILE_GOAL = 0.030  # seconds per extra file of one `drill check`


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--drill", default="mha-padding")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--no-cold", action="store_true", help="skip the cold `drill check` subprocesses")
    parser.add_argument("--cold-runs", type=int, default=3, help="cold subprocess runs of each kind (medians)")
    parser.add_argument("--files", type=int, default=11,
                        help="`drill check` of this many copies of the file, against one (per extra file)")
    parser.add_argument("--file", help="grade this (passing) solution instead of the reference")
    parser.add_argument("--gap", type=float, default=0.5,
                        help="idle seconds before each warm submission (a person reading and editing)")
    args = parser.parse_args()
    source, path = reference_source(args.drill)
    if args.file:
        path = str(Path(args.file).resolve())
        source = Path(path).read_text(encoding="utf-8")
    which = Path(args.file).name if args.file else "reference solution"
    print(f"drill {args.drill}, {which}, seed {args.seed}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}")
    start, first, warm, later = worker_figures(args.drill, source, args.seed, args.runs, args.gap)
    print(f"worker start (to ready)          {ms(start)}")
    print(f"worker first grade (cases built) {ms(first)}")
    if not args.no_cold:
        bares, colds, manys = [], [], []
        for _ in range(args.cold_runs):  # alternating: a cold start moves with the machine's load
            bares.append(bare_imports())
            colds.append(cold_check(args.drill, path, args.seed))
            if args.files > 1:
                manys.append(cold_check(args.drill, path, args.seed, args.files))
        bare = statistics.median(bares)
        cold, rc = statistics.median(c for c, _ in colds), max(r for _, r in colds)
        met = "met" if cold <= COLD_GOAL * bare else "not met"
        print(f"cold `drill check --json`, median {ms(cold)}  (exit {rc}; import torch, torchvision alone "
              f"{ms(bare).strip()}: {cold / bare:.2f}x, goal <= {COLD_GOAL}x: {met})")
        if manys:
            many, rc = statistics.median(m for m, _ in manys), max(r for _, r in manys)
            extra = (many - cold) / (args.files - 1)
            print(f"`drill check` of {args.files} files       {ms(many)}  (exit {rc}; {ms(extra).strip()} per extra "
                  f"file, goal <= {FILE_GOAL * 1000:g} ms: {'met' if extra <= FILE_GOAL else 'not met'})")
    bad = failing_answer(args.drill)
    times, standby, fails, floors, total = in_process(args.drill, source, args.seed, args.runs, args.gap,
                                                      bad[0] if bad else None)
    print(f"warm via worker, median of {args.runs:<3}   {ms(statistics.median(warm))}  "
          f"(min {ms(min(warm)).strip()}, max {ms(max(warm)).strip()})")
    if later:
        print(f"shape comments, after the verdict {ms(statistics.median(later))}  (the solution's traced run)")
    print(f"in-process, standby child        {ms(statistics.median(standby))}  "
          f"(min {ms(min(standby)).strip()}, max {ms(max(standby)).strip()}; {total} calls)")
    print(f"in-process, fresh fork           {ms(statistics.median(times))}  "
          f"(min {ms(min(times)).strip()}, max {ms(max(times)).strip()})")
    floor = statistics.median(floors)
    print(f"floor: bare fork + pipe, median  {ms(floor)}")
    ratio = statistics.median(warm) / floor if floor > 0 else float("inf")
    print(f"warm verdict / floor: {ratio:.1f}x; goal <= {GOAL_RATIO}x: "
          f"{'met' if ratio <= GOAL_RATIO else 'not met'}")
    if bad and fails:
        failing = statistics.median(fails) / floor if floor > 0 else float("inf")
        print(f"failing answer ({bad[1]}), standby child: {ms(statistics.median(fails)).strip()}, "
              f"{failing:.1f}x the floor; goal <= {FAILING_RATIO}x: {'met' if failing <= FAILING_RATIO else 'not met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
