"""`drill optimize` on a simulated person (tests/trainer/test_optimize.py's `simulate`): the
real fit (fsrs's five epochs, not the test's one), its CPU and wall time, and the
held-out log loss of the default and the fitted parameters.

    PYTHONPATH=. OMP_NUM_THREADS=1 python bench/optimize_sim.py [--epochs N] [--reviews N]

``--reviews N`` simulates about N reviews (40 drills, N/40 each; the default is 1000, the
full fit). Under the full fit's 640 scored reviews the partial fit of w0-w3 runs instead,
and the figures say which parameters it fitted.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=None, help="override fsrs's epochs (default: its own)")
    parser.add_argument("--reviews", type=int, default=1000, help="about this many simulated reviews (40 drills)")
    args = parser.parse_args()
    import fsrs.optimizer

    from tests.trainer.test_optimize import simulate
    from trainer.schedule.optimizing import fit, scored

    if args.epochs is not None:
        fsrs.optimizer.num_epochs = args.epochs
    points = simulate(per_drill=max(2, round(args.reviews / 40)))
    cpu, wall = time.process_time(), time.perf_counter()
    result = fit(points)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"reviews {len(points)}, scored {len(scored(points))}, trained on {result.trained_on}, "
          f"held out {result.held_out}, epochs {fsrs.optimizer.num_epochs}")
    which = (", ".join(f"w{i}" for i in result.fitted) + " (partial fit)") if result.partial else "all 21"
    print(f"fitted: {which}; {[round(x, 3) for x in result.parameters[:4]]} for w0-w3")
    print(f"log loss: default {result.loss_default:.4f}, fitted {result.loss_fitted:.4f}")
    print(f"fit: {cpu:.1f} s CPU, {wall:.1f} s wall")


if __name__ == "__main__":
    main()
