"""Routes around a drill's bans that the grader once let through (issue 23, "Bans with holes"), each
judged `banned` now.

ban_holes/<drill>__<route>.py computes the drill's answer by a route its prompt rules out: a kernel
of a banned operation's family that the oracles never reach on this CPU (aten.slow_conv3d,
mkldnn._convolution_pointwise, aten._native_multi_head_attention, flex_attention's higher-order
operator), a private helper of a banned function (numpy's _broadcast_shape, torch._refs._broadcast_shapes,
torchvision's _box_inter_union), a library function the spec's `banned:` list did not name
(F.group_norm, scipy's cdist, numpy.broadcast) or a banned call compiled by TorchScript. Its
`# banned:` lines are what the report must say; a `# needs:` line names what the route uses, and
the test is skipped where this torch (or this machine's packages) has no such thing.
Each file is first shown to be a real way around (outside the sandbox it computes the answer).
The files are read from beside this test, so it also runs against another checkout's grader.
"""
from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

HOLES = sorted((Path(__file__).resolve().parent / "ban_holes").glob("*.py"))
SEED = 7


def _header(path: Path, key: str) -> list[str]:
    return [line.split(":", 1)[1].strip() for line in path.read_text(encoding="utf-8").splitlines()
            if line.startswith(f"# {key}:")]


def _needs(path: Path) -> None:
    """Skip where what the route needs does not exist here (an operator this torch lacks, scipy)."""
    import importlib

    for dotted in _header(path, "needs"):
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            try:
                for attr in parts[i:]:
                    obj = getattr(obj, attr)
            except (AttributeError, RuntimeError):
                pytest.skip(f"{dotted} does not exist in this installation")
            break
        else:
            pytest.skip(f"{dotted} is not installed")


def _load(path: Path) -> ModuleType:
    module = ModuleType(f"hole_{path.stem.replace('-', '_')}")
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)  # noqa: S102 - our own test file
    return module


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("path", HOLES, ids=lambda p: p.stem)
def test_hole_is_a_real_way_around(grader, path):
    """Outside the sandbox (no bans) the file computes the drill's answer on its first float32 case."""
    from grader.cases.prepare import fresh
    from grader.judge.compare import compare_call

    _needs(path)
    prep = grader.prepared(grader.spec(path.name.split("__")[0]), SEED)
    module = _load(path)
    checked = 0
    for fn in prep.spec.functions:
        calls = [c for c in prep.calls if c.function.name == fn.name]
        calls = [c for c in calls if str(c.dtype) == "torch.float32"] or calls
        if calls and callable(getattr(module, fn.name, None)):
            verdict = compare_call(calls[0], getattr(module, fn.name)(*fresh(calls[0].args)), prep.spec.tolerance)
            assert verdict.verdict == "pass", (fn.name, verdict.message)
            checked += 1
    assert checked


@pytest.mark.parametrize("path", HOLES, ids=lambda p: p.stem)
def test_hole_is_banned(grader, path):
    _needs(path)
    report = grader.grade(path.name.split("__")[0], path.read_text(encoding="utf-8"), str(path), seed=SEED)
    assert report.verdict == "banned", (report.verdict, report.message)
    for fragment in _header(path, "banned"):
        assert fragment in report.message, report.message
    assert report.message.endswith("which this drill bans: write it by hand"), report.message


def test_torchscript_of_allowed_code_still_passes(grader):
    """Only a scripted function that names a banned call is refused: TorchScript itself is not banned."""
    source = ("import torch\n\n\n@torch.jit.script\ndef scores_without_einsum(q, k):\n"
              "    return q.transpose(1, 2) @ k.permute(0, 2, 3, 1)\n")
    report = grader.grade("einsum-read", source, "<scripted>", seed=SEED)
    assert report.verdict == "pass", (report.verdict, report.message)


def test_a_helper_still_serves_its_own_library(grader):
    """numpy.broadcast_to hands its work to _broadcast_to, a helper of the banned broadcast_arrays:
    the helper refuses the solution, not numpy's own functions that call it."""
    source = (
        "import numpy as np\n\n\ndef broadcast_shape(a, b):\n"
        "    n = max(len(a), len(b))\n"
        "    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)\n"
        "    if any(x != y and 1 not in (x, y) for x, y in zip(a, b)):\n"
        "        raise ValueError(f'{a} and {b} do not broadcast')\n"
        "    out = tuple(y if x == 1 else x for x, y in zip(a, b))\n"
        "    np.broadcast_to(np.empty(a, dtype=bool), out)\n"
        "    return out\n"
    )
    report = grader.grade("broadcast-rule", source, "<broadcast_to>", seed=SEED)
    assert report.verdict == "pass", (report.verdict, report.message)


def test_attention_family_holds_the_higher_order_operators():
    """flex_attention is a higher-order operator, outside the dispatcher's operator names: the family has it."""
    from grader.bans import trace

    members = set(trace.family_of("aten::scaled_dot_product_attention"))
    assert {"aten::_native_multi_head_attention", "aten::_scaled_dot_product_efficient_attention"} <= members
    import torch

    if "flex_attention" in torch._ops._higher_order_ops:
        assert "higher_order::flex_attention" in members


def test_a_name_not_imported_yet_is_guarded_at_its_import(tmp_path, monkeypatch):
    """The grader imports nothing to ban a name (scipy costs seconds): a package the solution imports
    itself is guarded as its import finishes, aliases included, even where the module that defines the
    banned function imports a submodule of its own before defining it (as scipy.spatial.distance does)."""
    import os
    import sys

    from grader.bans import calls

    pkg = tmp_path / "lazy_dist_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .impl import dist\n")
    (pkg / "impl.py").write_text("from . import helper\n\n\ndef dist(a, b):\n    return helper.sub(a, b) ** 2\n")
    (pkg / "helper.py").write_text("def sub(a, b):\n    return a - b\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert calls.locations(("lazy_dist_pkg.impl.dist",)) == []
    assert "lazy_dist_pkg" not in sys.modules  # finding where to guard it imported nothing
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        code = 1
        try:
            seen: list[str] = []
            calls.install(("lazy_dist_pkg.impl.dist",), [], seen.append)
            import lazy_dist_pkg
            from lazy_dist_pkg.impl import dist

            refused = 0
            for route in (dist, lazy_dist_pkg.dist):
                try:
                    route(3, 1)
                except calls.BannedCall:
                    refused += 1
            code = 0 if refused == 2 and seen == ["lazy_dist_pkg.impl.dist"] * 2 else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
