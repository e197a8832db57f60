"""Where one warm verdict's time goes, stage by stage (in-process grader, warm caches).

    python bench/stages.py [--drill mha-padding] [--runs 20] [--file FAILING.py]

Grades the drill's reference (a pass) and a failing answer (`--file`, default the drill's
first `bad_` sample) `--runs` times each after a warm-up, and prints the median of each stage:
- job: building the sandbox job (ban places, kernels, the gradient case's part);
- sandbox: the child's whole run, seen from here (the zygote's fork, the solution's load, the
  calls, the gradient case, the fake-tensor runs, the frames back);
- judge: comparing every case, the fake-tensor report, the gradient case;
- traps: trap attribution (a failing answer only);
- comments: the shape-comment trace (only when the code has shape comments);
- render: the text verdict;
- total: Grader.grade end to end, and what the stages above leave (other).
Figures are wall-clock medians on this machine: compare runs of the same machine only.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def timed(spent: dict[str, list[float]], name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            spent[name].append(time.perf_counter() - t0)
    return wrapper


def run(drill: str, source: str, filename: str, runs: int, seed: int) -> dict[str, float]:
    from grader import engine
    from trainer.text.verdict import render

    grader = engine.Grader()
    spent: dict[str, list[float]] = defaultdict(list)
    patches = [(engine.Grader, "job_for"), (engine.sandbox, "run"), (engine, "judge"), (engine, "match_traps"),
               (engine.Grader, "_shape_comments")]
    originals = [(owner, name, getattr(owner, name)) for owner, name in patches]
    labels = {"job_for": "job", "run": "sandbox", "judge": "judge", "match_traps": "traps",
              "_shape_comments": "comments"}
    for owner, name, func in originals:
        setattr(owner, name, timed(spent, labels[name], func))
    try:
        grader.grade(drill, source, filename, seed=seed)  # warm: cases, plans, the zygote's imports
        spent.clear()
        totals = []
        for _ in range(runs):
            time.sleep(0.05)  # a person reads the verdict; a standby child may be forked meanwhile
            t0 = time.perf_counter()
            report = grader.grade(drill, source, filename, seed=seed)
            t1 = time.perf_counter()
            render(report, width=100)
            spent["render"].append(time.perf_counter() - t1)
            totals.append(t1 - t0)
    finally:
        for owner, name, func in originals:
            setattr(owner, name, func)
    out = {name: statistics.median(values) for name, values in spent.items()}
    out["total"] = statistics.median(totals)
    inner = sum(v for k, v in out.items() if k in ("job", "sandbox", "judge", "comments"))
    out["other"] = max(0.0, out["total"] - inner)
    out["verdict"] = report.verdict  # type: ignore[assignment]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drill", default="mha-padding")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--file", default=None, help="a failing answer (default: the drill's first bad_ sample)")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    from grader.catalogue import load_catalogue

    spec = load_catalogue().get(args.drill)
    reference = Path(spec.reference_path)
    failing = Path(args.file) if args.file else sorted((spec.path.parent / "solutions" / spec.id).glob("bad_*.py"))[0]
    print(f"drill {args.drill}, seed {args.seed}, median of {args.runs} warm in-process verdicts per answer")
    order = ("job", "sandbox", "judge", "traps", "comments", "other", "total", "render")
    for label, path in (("reference", reference), (f"failing ({failing.name})", failing)):
        figures = run(args.drill, path.read_text(encoding="utf-8"), str(path), args.runs, args.seed)
        print(f"{label}: {figures.pop('verdict')}")
        for name in order:
            if name in figures:
                print(f"  {name:<9} {figures[name] * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
