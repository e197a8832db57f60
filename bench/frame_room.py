"""Fake-tensor runs at many frame depths, as called plainly and through grader.roomy.call.

CPython 3.11+ keeps frames in 16 KB chunks, mapped when a call needs one and unmapped when its
last frame returns; torch's dispatch is deep, so at some depths every op maps and unmaps a chunk.
This prints, for one fake run of a small attention function at the scale sizes (grader.fake.checks.run,
as a sandbox child runs a solution's), the median time at each depth, plainly and through
`roomy.call`, and the slowest over the fastest depth for each: roomy.call should make the depth
not matter.

    python bench/frame_room.py [--depths 120] [--step 6] [--runs 5]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def attention(q: Any, k: Any, v: Any, keep: Any) -> Any:
    import torch

    B, T, H, dh = q.shape
    q, k, v = (x.transpose(1, 2) for x in (q, k, v))
    scores = q @ k.transpose(-2, -1) / dh ** 0.5
    scores = scores.masked_fill(~keep[:, None, None, :], torch.finfo(scores.dtype).min)
    out = scores.softmax(-1) @ v
    return out.transpose(1, 2).reshape(B, T, H * dh)


def at_depth(depth: int, fn: Callable[[], Any]) -> Any:
    return fn() if depth == 0 else at_depth(depth - 1, fn)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, default=120, help="deepest extra frames to try")
    parser.add_argument("--step", type=int, default=6)
    parser.add_argument("--runs", type=int, default=5, help="runs per depth and way")
    args = parser.parse_args()

    import torch

    from grader import roomy
    from grader.fake import checks

    torch.set_num_threads(1)
    why = checks.problem()
    if why:
        raise SystemExit(f"fake tensors are not usable here: {why}")
    sketches = [checks.Sketch((8, 2048, 32, 128), torch.float16)] * 3 + [checks.Sketch((8, 2048), torch.bool)]

    def once() -> None:
        res = checks.run(attention, sketches, "cuda", __file__)
        if res["status"] != "ok":
            raise SystemExit(f"the fake run did not finish: {res}")

    ways: dict[str, Callable[[], None]] = {"plain": once, "roomy.call": lambda: roomy.call(once)}
    once()  # torch's first fake run pays its imports
    medians: dict[str, list[tuple[int, float]]] = {name: [] for name in ways}
    for depth in range(0, args.depths + 1, args.step):
        for name, way in ways.items():
            times = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                at_depth(depth, way)
                times.append(time.perf_counter() - t0)
            medians[name].append((depth, statistics.median(times)))
    print(f"Python {sys.version.split()[0]}, torch {torch.__version__}: one fake run of attention() at each depth, "
          f"median of {args.runs} runs (ms)")
    print("depth  " + "  ".join(f"{name:>10}" for name in ways))
    for i, (depth, _) in enumerate(medians["plain"]):
        print(f"{depth:5d}  " + "  ".join(f"{1000 * medians[name][i][1]:10.2f}" for name in ways))
    for name, rows in medians.items():
        times = [t for _, t in rows]
        print(f"{name}: slowest depth / fastest depth = {max(times) / min(times):.2f}; "
              f"median over depths {1000 * statistics.median(times):.2f} ms")


if __name__ == "__main__":
    main()
