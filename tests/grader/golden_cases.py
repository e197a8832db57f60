"""The golden record of the case inputs: per built-in drill, a sha256 of the exact
bytes that `prepare(spec, SEED)` (grader/cases/prepare.py) generates as arguments.

Why it exists: a team session hands every member the same seed, and each
member's machine builds the cases from it; the board compares results as if
everyone was graded on the same inputs. So the inputs must be the same bytes on
every machine, with any thread count, on any day. tests/grader/test_golden_cases.py
builds them again and compares with the committed record
(tests/fixtures/golden_cases.json). The expected values are left out: they are
computed in float64 and may differ in the last bit from one CPU to another
(grader/cases/case_hash.py rounds them for that reason); the inputs are exact.

What goes in, per call in order: the case, function and argument names, the
sizes, and every argument: a tensor as its dtype, shape, strides and raw bytes;
a number, string or None as its exact text (floats in hex); a tuple, list or
dict item by item. Any other kind of argument is an error here, so a new kind
is added on purpose, not hashed by accident.

After an intended change to how a drill's cases are generated, write the record
again and commit it with the change (from the repository root):

    python -m tests.grader.golden_cases --write     # rewrite tests/fixtures/golden_cases.json
    python -m tests.grader.golden_cases             # print what differs, exit 1 if anything does
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

SEED = 20261201
ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())  # wherever tests/ moves
RECORD = ROOT / "tests" / "fixtures" / "golden_cases.json"


def builtin_drill_root() -> Path:
    """The built-in drills (the `drills` package), never DRILL_PATH: the record is of them only."""
    import drills

    return Path(drills.__file__).resolve().parent


def builtin_specs() -> dict[str, Any]:
    from tests.builtin import builtin_catalogue

    catalogue = builtin_catalogue()
    if catalogue.errors:
        raise RuntimeError("the built-in drills do not load:\n" + "\n".join(catalogue.errors))
    return catalogue.specs


def inputs_digest(spec: Any, seed: int = SEED) -> str:
    """sha256 (hex) of the argument bytes of every call `prepare(spec, seed)` builds."""
    from grader.cases.prepare import prepare

    prep = prepare(spec, seed)
    h = hashlib.sha256(f"{spec.id}\0{seed}\0{len(prep.calls)}\0".encode())
    for call in prep.calls:
        h.update(f"call {call.case.name}\0{call.function.name}\0{sorted(call.sizes.items())}\0".encode())
        names = [a.name for a in call.function.args]
        if len(names) != len(call.args):
            raise ValueError(f"{spec.id}: {call.function.name} has {len(names)} arguments, the call {len(call.args)}")
        for name, value in zip(names, call.args):
            h.update(f"arg {name}\0".encode())
            _feed(h, value)
    return h.hexdigest()


def _feed(h: Any, value: Any, depth: int = 0) -> None:
    import torch

    if depth > 20:
        raise ValueError("an argument nested more than 20 deep")
    if isinstance(value, torch.Tensor):
        t = value.detach()
        if t.layout != torch.strided or t.device.type != "cpu":
            raise TypeError(f"an argument tensor with layout {t.layout} on {t.device}: extend tests/grader/golden_cases.py")
        h.update(f"tensor {t.dtype} {tuple(t.shape)} {t.stride()} {value.requires_grad}\0".encode())
        h.update(t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes())
    elif value is None or isinstance(value, (bool, int, str)):
        h.update(f"{type(value).__name__} {value!r}\0".encode())
    elif isinstance(value, float):
        h.update(f"float {value.hex()}\0".encode())
    elif isinstance(value, torch.dtype):
        h.update(f"dtype {value}\0".encode())
    elif isinstance(value, (tuple, list)):  # torch.Size is a tuple
        h.update(f"{type(value).__name__} {len(value)}\0".encode())
        for item in value:
            _feed(h, item, depth + 1)
    elif isinstance(value, dict):
        h.update(f"dict {len(value)}\0".encode())
        for key in sorted(value, key=str):
            h.update(f"key {key!s}\0".encode())
            _feed(h, value[key], depth + 1)
    else:
        raise TypeError(f"an argument of type {type(value).__qualname__}: extend tests/grader/golden_cases.py")


def current() -> dict[str, str]:
    """Drill id -> digest, built now, in catalogue order."""
    return {drill_id: inputs_digest(spec) for drill_id, spec in builtin_specs().items()}


def recorded() -> dict[str, Any]:
    return json.loads(RECORD.read_text(encoding="utf-8"))


def write(digests: dict[str, str]) -> None:
    record = {
        "about": "sha256 of the exact argument bytes prepare(spec, seed) builds for each built-in drill; "
                 "written by `python -m tests.grader.golden_cases --write`, checked by tests/grader/test_golden_cases.py",
        "seed": SEED,
        "drills": digests,
    }
    RECORD.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


def differences(now: dict[str, str], record: dict[str, Any]) -> list[str]:
    """One line per drill whose inputs are not the recorded ones (or that only one side has)."""
    was = record["drills"]
    lines = [f"{d}: new drill, not in the record" for d in now if d not in was]
    lines += [f"{d}: in the record, not in the catalogue" for d in was if d not in now]
    lines += [f"{d}: its inputs at seed {record['seed']} changed" for d in now if d in was and now[d] != was[d]]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.grader.golden_cases", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite {RECORD.name} from the drills as they are")
    args = parser.parse_args(argv)
    now = current()
    if args.write:
        write(now)
        print(f"wrote {RECORD} ({len(now)} drills, seed {SEED})")
        return 0
    if recorded()["seed"] != SEED:
        print(f"{RECORD} was written at seed {recorded()['seed']}, not {SEED}: write it again")
        return 1
    lines = differences(now, recorded())
    print("\n".join(lines) if lines else f"{len(now)} drills: the inputs are the recorded ones")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
