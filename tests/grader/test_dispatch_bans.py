"""Bans that hold at the dispatcher (issue 11): a banned function is refused
whatever route reaches its kernel.

tests/hostile/bans/<drill>__<route>.py reaches one banned kernel of the drill
through `torch.ops.aten.*`, `torch._VF.*` or `torch._C._nn.*`, or computes it
with torch's own Python implementation of the operator (torch._decomp,
torch._refs, a Python kernel on the operator); its first line names the
kernel (`# kernel: aten::_cdist_forward`). A file headed `# function: <name>`
calls a private helper the banned Python function hands its work to
(numpy's c_einsum, torchvision's _batched_nms_coordinate_trick). Each file is first shown
to be a real way around the ban (outside the sandbox it computes the drill's
answer), then graded: it must be judged `banned`, with a message naming the
banned function and the operator. That the bans refuse nothing a correct
solution needs is shown where those are graded, with the bans on: every
drill's reference in test_drills.py, every drills/*/solutions/*/ok_*.py in
test_solutions.py.
"""
from __future__ import annotations

from tests.paths import TESTS

from pathlib import Path
from types import ModuleType

import pytest

from grader.bans import trace as ban_trace
from grader.bans import dispatch as dispatch_bans
from grader.cases.prepare import fresh
from grader.judge.compare import compare_call

ATTACKS = sorted((TESTS / "hostile" / "bans").glob("*.py"))
SEED = 7
# the kernels each drill must refuse at least (a floor, not the derivation: that is grader.bans.trace)
MUST_REFUSE = {
    "einsum-read": {"aten::einsum"},
    "pairwise-sqdist": {"aten::cdist", "aten::_cdist_forward", "aten::_euclidean_dist", "aten::pdist",
                        "aten::_pdist_forward", "aten::pairwise_distance"},
    "reduction-axes": {"aten::layer_norm", "aten::native_layer_norm"},
    "cross-attention": {"aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention_for_cpu"},
    "gqa": {"aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention_for_cpu"},
    "kv-cache": {"aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention_for_cpu"},
    "mha-padding": {"aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention_for_cpu",
                    "aten::_scaled_dot_product_attention_math"},
    "one-hot-counts": {"aten::one_hot", "aten::bincount"},
    "im2col": {"aten::conv2d", "aten::convolution", "aten::_convolution", "aten::thnn_conv2d",
               "aten::_slow_conv2d_forward", "aten::mkldnn_convolution", "aten::_convolution_mode"},
    "patchify": {"aten::im2col"},
    "unpatchify": {"aten::col2im"},
    "broadcast-rule": {"aten::broadcast_tensors"},
    "class-aware-nms": set(),  # batched_nms is torchvision Python over torchvision::nms, which the drill requires
    "pairwise-iou": set(),  # box_iou is torchvision Python over ordinary tensor operators
    "rms-norm": {"aten::rms_norm"},
    "batch-norm": {"aten::batch_norm"},
    "cross-entropy": {"aten::cross_entropy_loss"},
    "tiled-attention": {"aten::scaled_dot_product_attention"},
    "paged-kv": {"aten::scaled_dot_product_attention"},
    "attention-backward": {"aten::_scaled_dot_product_flash_attention_for_cpu_backward"},
    "conv2d-groups": {"aten::conv2d", "aten::convolution"},
    "roi-align": {"torchvision::roi_align"},
    # banned by name only: Python front ends over ordinary operators, or libraries not installed here
    "layer-norm-backward": set(),
    "clip-loss": set(),
    "kl-distill": set(),
    "moe-aux-loss": set(),
    "rope": set(),
    "sampling-filter": set(),
}


def _drill_and_kernel(path: Path) -> tuple[str, str]:
    """The drill and what the file reaches: a kernel (`aten::einsum`) or, for a Python route
    into a banned function's helper, the banned function (`numpy.einsum`)."""
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith(("# kernel: ", "# function: ")), f"{path.name}: the first line must name the kernel"
    return path.name.split("__")[0], first.split(":", 1)[1].strip()


def _load(path: Path) -> ModuleType:
    module = ModuleType(f"attack_{path.stem.replace('-', '_')}")
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)  # noqa: S102 - our own test file
    return module


def test_every_banned_drill_is_covered(catalogue):
    banned = {spec.id for spec in catalogue.specs.values() if spec.banned}
    assert banned == set(MUST_REFUSE)
    for drill, ops in MUST_REFUSE.items():
        routes = {_drill_and_kernel(p)[1] for p in ATTACKS if p.name.startswith(drill + "__")}
        assert {r for r in routes if "::" in r} == ops, f"{drill}: an attack file for every kernel it must refuse"


@pytest.mark.parametrize("drill", sorted(MUST_REFUSE))
def test_derived_kernels(grader, drill):
    prep = grader.prepared(grader.spec(drill), SEED)
    kernels = ban_trace.kernels(prep)
    assert MUST_REFUSE[drill] <= set(kernels), sorted(kernels)
    if drill in ("cross-attention", "gqa", "kv-cache"):
        assert "aten::_scaled_dot_product_attention_math" in kernels
    assert "torchvision::nms" not in kernels
    assert all(name in prep.spec.banned for name in kernels.values())


# kernels a family brings in that no CPU's trace of the oracles reaches (what a second route would use)
FAMILY_FLOOR = {
    "im2col": {"aten::thnn_conv2d", "aten::mkldnn_convolution", "aten::convolution_backward", "aten::slow_conv_dilated2d",
               "aten::slow_conv3d", "aten::slow_conv_transpose2d", "aten::cudnn_convolution", "mkldnn::_convolution_pointwise"},
    "mha-padding": {"aten::_native_multi_head_attention", "aten::_scaled_dot_product_efficient_attention",
                    "aten::_flash_attention_forward", "aten::_transformer_encoder_layer_fwd",
                    "higher_order::flex_attention"},
    "pairwise-sqdist": {"aten::_cdist_backward", "aten::_pdist_backward"},
    "reduction-axes": {"aten::group_norm", "aten::native_group_norm", "aten::rms_norm"},
    "one-hot-counts": {"aten::histc", "aten::histogram"},
}


@pytest.mark.parametrize("drill", sorted(FAMILY_FLOOR))
def test_a_family_is_banned_whole(grader, drill):
    prep = grader.prepared(grader.spec(drill), SEED)
    assert FAMILY_FLOOR[drill] <= set(ban_trace.kernels(prep)), sorted(ban_trace.kernels(prep))


@pytest.mark.filterwarnings("ignore:TF32 acceleration")
@pytest.mark.parametrize("drill", ["im2col", "reduction-axes", "mha-padding", "pairwise-sqdist"])
def test_the_banned_kernels_do_not_depend_on_the_cpu(grader, drill):
    """oneDNN on or off sends convolution (and more) down other kernels; what is refused stays the same."""
    import torch

    prep = grader.prepared(grader.spec(drill), SEED)
    here = ban_trace.derive(prep)
    with torch.backends.mkldnn.flags(enabled=False):
        other = ban_trace.derive(prep)
    assert here == other


@pytest.mark.parametrize("path", ATTACKS, ids=lambda p: p.stem)
def test_route_is_a_real_way_around(grader, path):
    """Outside the sandbox (no bans) the file computes the drill's answer on its first float32 case."""
    drill, _ = _drill_and_kernel(path)
    prep = grader.prepared(grader.spec(drill), SEED)
    module = _load(path)
    checked = 0
    for fn in prep.spec.functions:
        calls = [c for c in prep.calls if c.function.name == fn.name and str(c.dtype) == "torch.float32"]
        if not calls or not callable(getattr(module, fn.name, None)):
            continue
        got = getattr(module, fn.name)(*fresh(calls[0].args))
        verdict = compare_call(calls[0], got, prep.spec.tolerance)
        assert verdict.verdict == "pass", (fn.name, verdict.message)
        checked += 1
    assert checked


@pytest.mark.parametrize("path", ATTACKS, ids=lambda p: p.stem)
def test_route_is_banned(grader, path):
    drill, kernel = _drill_and_kernel(path)
    report = grader.grade(drill, path.read_text(encoding="utf-8"), str(path), seed=SEED)
    assert report.verdict == "banned", (report.verdict, report.message)
    if "::" in kernel:
        banned_name = ban_trace.kernels(grader.prepared(grader.spec(drill), SEED))[kernel]
    else:  # a helper the banned function hands its work to (grader.bans.calls.helpers)
        banned_name = kernel
        assert f"called {kernel} (as " in report.message, report.message
    # `(as aten.X)` when the dispatcher refused it, `(as torch._refs...)` for a Python implementation;
    # a route that is the banned object itself (torch._C._nn.scaled_dot_product_attention) is refused by name
    assert f"called {banned_name}" in report.message, report.message
    if "__aten_" in path.name or "no_modes" in path.name:  # the dispatcher refused it (not the name guard)
        assert f"(as {kernel.replace('::', '.')})" in report.message, report.message


def test_removing_the_ban_is_judged_banned(grader):
    source = (
        "import gc\nimport torch\n"
        "for obj in gc.get_objects():\n"
        "    if isinstance(obj, torch.library.Library):\n"
        "        obj._destroy()\n"
        "def scores_without_einsum(q, k):\n"
        "    return torch._VF.einsum('bthd,bshd->bhts', [q, k])\n"
    )
    report = grader.grade("einsum-read", source, "<destroy>", seed=SEED)
    assert report.verdict == "banned"
    assert "torch.einsum (after removing the ban on it)" in report.message


def test_a_swallowed_refusal_is_still_reported(grader):
    source = (
        "import torch\n"
        "def scores_without_einsum(q, k):\n"
        "    try:\n"
        "        torch.ops.aten.einsum('bthd,bshd->bhts', [q, k])\n"
        "    except BaseException:\n"
        "        pass\n"
        "    return q.transpose(1, 2) @ k.permute(0, 2, 3, 1)\n"
    )
    report = grader.grade("einsum-read", source, "<swallow>", seed=SEED)
    assert report.verdict == "banned"
    assert "torch.einsum (as aten.einsum)" in report.message


def test_install_refuses_every_route_in_process():
    """The refusing kernels themselves, without a sandbox: installed in a forked child only."""
    import os

    import torch

    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        code = 1
        try:
            seen: list[str] = []
            dispatch_bans.install({"aten::bincount": "torch.bincount"}, seen.append)
            x = torch.tensor([0, 2, 2])
            refused = 0
            for route in (lambda: torch.ops.aten.bincount(x), lambda: torch._VF.bincount(x),
                          lambda: x.bincount(), lambda: torch.ops.aten.bincount.out(x, out=torch.empty(3))):
                try:
                    route()
                except BaseException as exc:  # noqa: BLE001
                    refused += type(exc).__name__ == "BannedCall"
            ok = refused == 4 and seen == ["torch.bincount (as aten.bincount)"] * 4 and dispatch_bans.tampered() is None
            ok = ok and int(torch.zeros(3, dtype=torch.int64).index_add_(0, x, torch.ones_like(x)).sum()) == 3
            code = 0 if ok else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
