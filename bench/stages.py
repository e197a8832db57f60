"""Where one warm verdict's time goes, stage by stage (in-process grader, warm caches, a standby child).

    python bench/stages.py [--drill mha-padding] [--runs 20] [--file FAILING.py]

Grades the drill's reference (a pass) and a failing answer (`--file`, default the drill's
first `bad_` sample) `--runs` times each after a warm-up, a standby child forked in the idle
gap before each as the worker does, and prints the median of each stage.

Before the verdict (what a person waits for):
- job: building the sandbox job (ban places, kernels, the gradient case's part);
- sandbox: the child's whole run, seen from here, split by the frames' arrival times (a job split
  in two, grader.sandbox.split, shows each half: "main" for the real cases and the gradient case,
  "side" for the fake-tensor runs, side by side in time):
  - go: handing the standby child its source, to its "confined" frame;
  - load: the solution's file run as a module;
  - calls: every real case;
  - fake: the device case and memory at scale on fake tensors (grader.fake.checks);
  - gradient: the gradient case (grader.cases.gradient), last: a child whose real cases already
    failed is stopped before it;
  - finish: the "done" frame to the child reaped and its arguments compared;
- judge: comparing every case, the fake-tensor report, the gradient case, trap attribution;
- traps: trap attribution alone (a failing answer; inside judge);
- other: what the stages above leave of the verdict's total;
- verdict: Grader.grade end to end without the shape comments (the REPL's :submit);
- render: the text verdict.
After the verdict (shown when it comes; `drill check --json` waits for it):
- comments: the shape-comment trace (only when the code has shape comments);
- smallest: the smallest-case search (a failing answer with a case to shrink).
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

CHILD = ("go", "load", "calls", "fake", "gradient", "finish")


def timed(spent: dict[str, list[float]], name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            spent[name].append(time.perf_counter() - t0)
    return wrapper


def child_stages(frames: list[tuple[float, str, Any]], start: float, end: float) -> dict[str, float]:
    """The child's stages from the arrival times of its frames (type, call) between `start` and `end`."""
    def first(pred: Callable[[str, Any], bool]) -> float | None:
        return next((t for t, kind, call in frames if pred(kind, call)), None)

    def last(pred: Callable[[str, Any], bool]) -> float | None:
        return next((t for t, kind, call in reversed(frames) if pred(kind, call)), None)

    marks = [start,
             first(lambda k, c: k == "confined") or start,
             first(lambda k, c: k in ("loaded", "load_error")),
             last(lambda k, c: k == "result"),
             first(lambda k, c: k == "fake"),
             last(lambda k, c: k == "gradient"),
             first(lambda k, c: k == "done"),
             end]
    out, at = {}, start
    for name, mark in zip(CHILD, marks[1:]):
        if mark is None:  # no such stage in this run (no gradient case, no fake runs, a file that did not load)
            out[name] = 0.0
            continue
        out[name] = max(0.0, mark - at)
        at = mark
    out["finish"] = max(0.0, end - at)
    return out


def run(drill: str, source: str, filename: str, runs: int, seed: int) -> dict[str, Any]:
    from grader import engine, sandbox
    from grader.sandbox import channel
    from trainer.text.verdict import render

    grader = engine.Grader()
    spent: dict[str, list[float]] = defaultdict(list)
    frames: list[tuple[float, str, Any, int]] = []  # arrival, type, call, which channel
    feed = channel.Channel.feed

    def fed(self: Any, header: dict, blobs: list) -> Any:
        frames.append((time.perf_counter(), str(header.get("type")), header.get("call"), id(self)))
        return feed(self, header, blobs)

    patches = [(engine.Grader, "job_for", "job"), (engine, "judge", "judge"), (engine, "match_traps", "traps")]
    originals = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    for owner, name, label in patches:
        setattr(owner, name, timed(spent, label, getattr(owner, name)))
    run_child = engine.sandbox.run

    grading = [False]  # inside the verdict's grade: the smallest-case search's runs are timed as its own

    def child(job: Any, limits: Any, moot: Any = None) -> Any:
        frames.clear()
        t0 = time.perf_counter()
        try:
            return run_child(job, limits, moot)
        finally:
            t1 = time.perf_counter()
            if grading[0]:
                spent["sandbox"].append(t1 - t0)
                channels = list(dict.fromkeys(c for *_, c in frames))
                for channel_id in channels:
                    mine = [(t, kind, call) for t, kind, call, c in frames if c == channel_id]
                    half = "" if len(channels) == 1 else ("side " if any(k == "fake" for _, k, _ in mine) and
                                                          not any(k == "result" for _, k, _ in mine) else "main ")
                    ended = max(t for t, _, _ in mine)  # its last frame: the halves end apart
                    for name, value in child_stages(mine, t0, ended if half else t1).items():
                        spent[half + name].append(value)

    channel.Channel.feed = fed  # type: ignore[method-assign]
    engine.sandbox.run = child  # type: ignore[attr-defined]
    try:
        grading[0] = True
        report = grader.grade(drill, source, filename, seed=seed)  # warm: cases, plans, the zygote's imports
        grading[0] = False
        spent.clear()
        totals, later, smallest = [], [], []
        for _ in range(runs):
            sandbox.prefork()  # as the worker does once it has answered
            time.sleep(0.3)  # a person reads the verdict and edits; the standby child gets ready
            grading[0] = True
            t0 = time.perf_counter()
            report = grader.grade(drill, source, filename, seed=seed, comments=False)
            t1 = time.perf_counter()
            grading[0] = False
            render(report, width=100)
            spent["render"].append(time.perf_counter() - t1)
            totals.append(t1 - t0)
            t2 = time.perf_counter()
            if grader.shape_comments(drill, source, filename, seed):
                later.append(time.perf_counter() - t2)
            if report.shrink_target is not None:
                t2 = time.perf_counter()
                grader.smallest(report, source, filename)
                smallest.append(time.perf_counter() - t2)
    finally:
        for owner, name, func in originals:
            setattr(owner, name, func)
        channel.Channel.feed = feed  # type: ignore[method-assign]
        engine.sandbox.run = run_child  # type: ignore[attr-defined]
        sandbox.STANDBY.discard()
    out: dict[str, Any] = {name: statistics.median(values) for name, values in spent.items() if any(values)}
    out["verdict"] = statistics.median(totals)
    out["other"] = max(0.0, out["verdict"] - sum(out.get(k, 0.0) for k in ("job", "sandbox", "judge")))
    if later:
        out["comments"] = statistics.median(later)
    if smallest:
        out["smallest"] = statistics.median(smallest)
    out["outcome"] = report.verdict
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
    from grader.authoring.samples import files
    from grader.catalogue import load_catalogue

    spec = load_catalogue().get(args.drill)
    reference = Path(spec.reference_path)
    failing = Path(args.file) if args.file else [p for p in files(spec) if p.name.startswith("bad_")][0]
    print(f"drill {args.drill}, seed {args.seed}, median of {args.runs} warm in-process verdicts per answer "
          "(a standby child each time)")
    rows = [("job", 2), ("sandbox", 2), *((c, 4) for c in CHILD),
            *((f"{half} {c}", 4) for half in ("main", "side") for c in CHILD),
            ("judge", 2), ("traps", 4), ("other", 2), ("verdict", 2), ("render", 2)]
    for label, path in (("reference", reference), (f"failing ({failing.name})", failing)):
        figures = run(args.drill, path.read_text(encoding="utf-8"), str(path), args.runs, args.seed)
        print(f"{label}: {figures.pop('outcome')}")
        for name, indent in rows:
            if name in figures:
                print(f"{' ' * indent}{name:<{16 - indent}} {figures[name] * 1000:8.1f} ms")
        print("  after the verdict:")
        for name in ("comments", "smallest"):
            if name in figures:
                print(f"    {name:<8} {figures[name] * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
