"""What the smallest-failing-case search costs, and that it leaves the warm verdict as fast.

    python bench/smallest.py [--runs 5] [--gap 0.3] [--samples gqa:bad_repeat.py,...]

For each wrong sample solution (a drill's own `bad_` file), through the worker as the REPL
uses it (grader.worker's "smallest" op, after the verdict is shown):
- the warm verdict (median of N submissions, the standby child forked during the gap);
- the search: its seconds (round trip and inside the grader), the sizes found, the dimensions free;
- the warm verdict again right after a search (median of N): the standby child waiting for
  the next submission is kept aside during the search, so this should match the first.
`drill check` runs the same search in-process within its budget (grader.judge.smallest.BUDGET).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SAMPLES = "gqa:bad_repeat.py,masked-mean:bad_mean.py,einsum-read:bad_no_transpose.py"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def sample(drill: str, name: str) -> str:
    from grader.authoring.samples import folder
    from grader.catalogue import load_catalogue

    return (folder(load_catalogue().get(drill)) / name).read_text(encoding="utf-8")


def warm_times(client, drill: str, source: str, seed: int, runs: int, gap: float) -> list[float]:
    times = []
    for _ in range(runs):
        time.sleep(gap)  # a person reads the verdict; the worker forks the next child meanwhile
        t0 = time.monotonic()
        client.grade(drill, source, seed=seed)
        times.append(time.monotonic() - t0)
    return times


def main() -> int:
    from grader.worker import WorkerClient

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--gap", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--samples", default=SAMPLES, help="drill:bad_file.py pairs, comma-separated")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} (figures on a loaded machine run long)")
    client = WorkerClient()
    client.wait_ready()
    try:
        for item in args.samples.split(","):
            drill, name = item.split(":")
            try:
                source = sample(drill, name)
            except OSError as exc:
                print(f"{drill} {name}: no such sample ({exc})")
                continue
            report = client.grade(drill, source, seed=args.seed)
            before = warm_times(client, drill, source, args.seed, args.runs, args.gap)
            t0 = time.monotonic()
            found = client.smallest(report, source)
            search = time.monotonic() - t0
            after = []
            for _ in range(args.runs):
                client.smallest(report, source)
                after += warm_times(client, drill, source, args.seed, 1, args.gap)
            print(f"{drill} {name}: {report.verdict}, shown case {report.shown_case.name if report.shown_case else '-'}")
            print(f"  warm verdict, median of {args.runs:<3}          {ms(statistics.median(before))}")
            if found is None:
                print(f"  search                             {ms(search)}  (nothing to shrink)")
            else:
                sizes = " ".join(f"{k}={v}" for k, v in found.sizes.items())
                print(f"  search (worker round trip)         {ms(search)}  (in the grader {ms(found.seconds).strip()}; "
                      f"{'complete' if found.complete else 'stopped at its budget'})")
                print(f"  smallest failing: {sizes}; free: {', '.join(found.free) or 'none'}")
            print(f"  warm verdict right after a search  {ms(statistics.median(after))}")
    finally:
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
