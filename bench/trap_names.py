"""Recall and precision of trap names over the sample solutions (issue 22 item 4).

Grades every sample solution whose first line is `# trap: <id>` or `# trap: none`
(drills/*/solutions/<id>/) with the seed the sample tests use, and prints:

- recall: of the `# trap: <id>` files, how many the report names as that trap;
- precision: of the files the report names a trap for, how many are named as
  their header says (a `# trap: none` file named as a trap counts against it);
- each file that is not named as its header says, one line each.

    python bench/trap_names.py [--drills ID,ID...] [--limit N]
"""
from __future__ import annotations

import argparse
import time


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.0f}%" if b else "n/a"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drills", default="", help="comma-separated drill ids (default: every drill)")
    parser.add_argument("--limit", type=int, default=0, help="grade at most N drills (0: all)")
    parser.add_argument("--seed", type=int, default=7, help="the seed tests/drills/test_solutions.py uses")
    args = parser.parse_args()

    from grader.authoring import samples
    from grader.engine import Grader
    from grader.spec.userfile import SOLUTION_LIMIT, read_text

    grader = Grader()
    wanted = [d for d in args.drills.split(",") if d]
    specs = [s for s in grader.catalogue.specs.values() if not wanted or s.id in wanted]
    if args.limit:
        specs = specs[:args.limit]
    t0 = time.perf_counter()
    traps = hits = named = named_right = slips = slips_named = 0
    misses: list[str] = []
    for spec in specs:
        prep = grader.prepared(spec, args.seed)
        for path in samples.files(spec):
            source = read_text(path, SOLUTION_LIMIT)
            header = samples.expected_trap(source)
            if not header:
                continue
            report = grader.grade_prepared(prep, source, str(path))
            got = report.trap.id if report.trap else None
            if header == samples.SLIP:
                slips += 1
                slips_named += got is not None
            else:
                traps += 1
                hits += got == header
            if got is not None:
                named += 1
                named_right += got == header
            if got != (None if header == samples.SLIP else header):
                misses.append(f"  {spec.id}/{path.name}: header {header}, named {got or 'no trap'}")
    seconds = time.perf_counter() - t0
    print(f"{len(specs)} drills, {traps} `# trap: <id>` files, {slips} `# trap: none` files, {seconds:.0f} s")
    print(f"recall:    {hits}/{traps} ({pct(hits, traps)}) trap files named as their header says")
    print(f"precision: {named_right}/{named} ({pct(named_right, named)}) names right; "
          f"{slips_named} of {slips} slips named as a trap")
    for line in misses:
        print(line)


if __name__ == "__main__":
    main()
