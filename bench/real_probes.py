"""What the real-tensor memory probes (grader.fake.real) add to a drill's fake-tensor plan.

    python bench/real_probes.py [drill ...]

Prints, per drill (all built-in drills by default): the CPU seconds of its fake
plan (grader.fake.scale.plan_for) with and without the probes, and the reduced
sizes each scale-checked function is probed at (or why it is not). The plan is
built once per drill and variant in a grading process; the probes' runs of a
solution happen only when fake tensors could not follow its code.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(ids: list[str]) -> None:
    import torch

    torch.set_num_threads(1)
    from grader.cases.prepare import prepare
    from grader.catalogue import load_catalogue
    from grader.fake import checks, scale

    catalogue = load_catalogue()
    with_real = checks._plan_real
    total = [0.0, 0.0]
    for drill in ids or list(catalogue.specs):
        spec = catalogue.get(drill)
        prep = prepare(spec, 3)
        scale.plan_for(spec, prep)  # warm: imports and caches
        start = time.process_time()
        plan = scale.plan_for(spec, prep)
        probed = time.process_time() - start
        checks._plan_real = lambda *a, **k: None  # type: ignore[assignment]
        start = time.process_time()
        scale.plan_for(spec, prep)
        bare = time.process_time() - start
        checks._plan_real = with_real
        total[0] += probed
        total[1] += bare
        sizes = [(f.name, f.real.sizes if f.real else f.why_no_real) for f in plan.functions if f.scale]
        print(f"{drill:22s} {probed * 1000:7.0f} ms with probes, {bare * 1000:7.0f} ms without  {sizes}")
    print(f"all: {total[0]:.2f} s with probes, {total[1]:.2f} s without (CPU seconds)")


if __name__ == "__main__":
    main(sys.argv[1:])
