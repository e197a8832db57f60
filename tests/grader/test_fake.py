"""The device case and memory at scale on fake tensors (issue 14): grader.fake.checks, grader.fake.scale."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from grader.fake import checks as fake
from grader.fake import scale
from grader.spec import SpecError
from grader.spec.parse import parse_spec

FILE = "/tmp/solution.py"


def _compiled(source: str) -> dict:
    import linecache

    linecache.cache[FILE] = (len(source), None, source.splitlines(True), FILE)
    namespace: dict = {}
    exec(compile(source, FILE, "exec"), namespace)  # noqa: S102 - test input
    return namespace


def test_fake_tensors_work_here():
    assert fake.problem() is None


def test_a_cpu_tensor_meeting_cuda_inputs_names_both_lines():
    ns = _compiled("import torch\n\ndef f(x):\n    T = x.shape[1]\n    m = torch.arange(T)\n    return x + m\n")
    res = fake.run(ns["f"], [fake.Sketch((2, 5), torch.float32)], "cuda", FILE)
    assert res["status"] == "raised"
    assert res["exc"]["device_mix"] is True
    assert res["made_at"][0] == 5 and "torch.arange(T)" in res["made_at"][1]


@pytest.mark.parametrize("body", [
    "return x * torch.tensor(2.0) + 3",  # a 0-d CPU tensor and a Python scalar
    "return x + torch.arange(x.shape[1], device=x.device)",
    "return x + x.new_ones(x.shape[1])",
    "return torch.where(x > 0, x, torch.zeros_like(x))",
    "return x + torch.arange(x.shape[1]).to(x)",
])
def test_device_aware_code_runs_and_stays_on_the_device(body):
    ns = _compiled(f"import torch\n\ndef f(x):\n    {body}\n")
    res = fake.run(ns["f"], [fake.Sketch((2, 5), torch.float32)], "cuda", FILE)
    assert res["status"] == "ok", res
    assert res["outputs"] == [{"shape": [2, 5], "dtype": "float32", "device": "cuda:0"}]


LORALIB = """import torch
import torch.nn as nn
import torch.nn.functional as F


def f(x, W, A, B):
    layer = nn.Linear(W.shape[1], W.shape[0], bias=False)  # made on the CPU, as loralib's Linear is
    layer.lora_A = nn.Parameter(torch.zeros(A.shape))
    layer.weight.data = W  # on a GPU, .data = moves each parameter to W's device
    layer.lora_A.data = A
    return F.linear(x, layer.weight) + (x @ layer.lora_A.T) @ B.T
"""


def test_a_parameter_reassigned_with_data_moves_as_on_a_gpu():
    # loralib's Linear reassigns its parameters with param.data = ...: on a real GPU (and in torch's own
    # Module._apply) that moves them; torch's fake tensors alone keep them on the CPU (a device error)
    ns = _compiled(LORALIB)
    args = [fake.Sketch(s, torch.float32) for s in ((2, 3, 7), (5, 7), (4, 7), (5, 4))]
    res = fake.run(ns["f"], args, "cuda", FILE)
    assert res["status"] == "ok", res.get("exc")
    assert res["outputs"] == [{"shape": [2, 3, 5], "dtype": "float32", "device": "cuda:0"}]
    assert "data_moved" not in res


def test_data_moved_to_the_cpu_is_still_a_device_error():
    # the other way round a GPU does the same: the tensor lands on the CPU and meets a CUDA one
    ns = _compiled("import torch\n\ndef f(x):\n    y = x * 2\n    y.data = torch.zeros(x.shape)\n    return x + y\n")
    res = fake.run(ns["f"], [fake.Sketch((2, 5), torch.float32)], "cuda", FILE)
    assert res["status"] == "raised" and res["exc"]["device_mix"] is True and "data_moved" not in res


def test_a_data_assignment_fake_tensors_cannot_follow_is_not_checked():
    # where the fake run could not give the tensor its new device, its device error is not the code's
    fp = fake.FunctionPlan("f", small_sizes={"N": 3}, device=True)
    run = {"sizes": "small", "device": "cuda", "status": "raised", "data_moved": [9, "p.data = W"],
           "exc": {"type": "FakeTensorDeviceMismatchError", "message": "found cuda:0 and cpu", "line": 12,
                   "device_mix": True, "needs_values": False}}
    res, note = scale._device_case(fp, fake.Plan(None), run)
    assert res is None and note.check == "device"
    assert note.why.startswith("it assigns a tensor on another device to a tensor's .data at line 9 (p.data = W)")


def test_peak_bytes_at_scale_without_allocating():
    naive = _compiled("def f(A, B):\n    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)\n")["f"]
    expanded = _compiled("def f(A, B):\n"
                         "    return ((A * A).sum(1, keepdim=True) - 2 * A @ B.T + (B * B).sum(1)).clamp_min(0)\n")["f"]
    args = [fake.Sketch((2000, 512), torch.float32), fake.Sketch((1500, 512), torch.float32)]
    big = fake.run(naive, args, "cpu", FILE)
    small = fake.run(expanded, args, "cpu", FILE)
    assert big["peak"] >= 2000 * 1500 * 512 * 4  # the (N, M, d) difference, 6.1 GB
    assert big["culprit"][:3] == [2000, 1500, 512]
    assert 2000 * 1500 * 4 <= small["peak"] < 100 * 2**20
    text = scale.culprit_text(big["culprit"], {"N": 2000, "M": 1500, "d": 512})
    assert text.startswith("an (N, M, d) float32 intermediate")


def test_storage_freed_is_subtracted():
    ns = _compiled("def f(x):\n    for _ in range(10):\n        x = x * 2\n    return x\n")
    res = fake.run(ns["f"], [fake.Sketch((1024, 1024), torch.float32)], "cpu", FILE)
    assert res["status"] == "ok"
    assert res["peak"] <= 2 * 4 * 2**20  # at most two 4 MiB tensors alive at once, not ten


def test_a_loop_over_a_production_dim_is_cut_short():
    ns = _compiled("def f(x):\n    out = x[0]\n    for i in range(x.shape[0]):\n        out = out + x[i]\n    return out\n")
    res = fake.run(ns["f"], [fake.Sketch((100_000, 4), torch.float32)], "cpu", FILE, max_ops=500)
    assert res["status"] == "too_many_ops"


def test_nonzero_style_output_has_a_symbolic_size():
    ns = _compiled("def f(x):\n    return (x > 0).nonzero()[:, 0]\n")
    plain = fake.run(ns["f"], [fake.Sketch((8,), torch.float32)], "cuda", FILE)
    assert plain["status"] == "raised" and plain["exc"]["needs_values"]
    res = fake.run(ns["f"], [fake.Sketch((8,), torch.float32)], "cuda", FILE, shape_env=True)
    assert res["status"] == "ok" and res["outputs"][0]["shape"] == [None]


# ------------------------------------------------------------- the spec keys


def _spec_text(extra: str) -> str:
    return f"""id: tiny
title: t
topic: broadcasting
prompt: p
target_seconds: 60
dims: {{N: [2, 5], d: [2, 4], D: N * d}}
functions:
  f:
    args:
      x: {{shape: [N, d], gen: randn}}
    returns: {{shape: [N, d], dtype: float}}
cases:
  - {{name: a}}
traps:
  - {{id: t, function: f, message: m}}
quiz:
  - {{q: a, a: b}}
  - {{q: c, a: d}}
hints: [h]
{extra}"""


def _problems(tmp_path: Path, extra: str) -> list[str]:
    path = tmp_path / "tiny.yaml"
    path.write_text(_spec_text(extra))
    (tmp_path / "tiny.py").write_text("def f(x):\n    return x\n")
    try:
        spec = parse_spec(path)
    except SpecError as exc:
        return exc.problems
    assert spec.scale is None or spec.scale.dims["D"] == spec.scale.dims["N"] * spec.scale.dims["d"]
    return []


def test_scale_and_opt_out_keys_parse(tmp_path):
    extra = "scale: {dims: {N: 4096, d: 1024}, max_bytes: 2147483648}\nno_device_case: scipy on the CPU\n"
    assert _problems(tmp_path, extra) == []


@pytest.mark.parametrize("extra, needle", [
    ("scale: {dims: {N: 4096}}", "give a size for d"),
    ("scale: {dims: {N: 4096, d: 8, Q: 3}}", "scale.dims.Q: unknown dimension"),
    ("scale: {dims: {N: 4096, d: 8, D: 3}}", "scale.dims.D: derived"),
    ("scale: {dims: {N: 0, d: 8}}", "expected a size >= 1"),
    ("scale: {dims: {N: 4, d: 8}, max_bytes: 0}", "scale.max_bytes"),
    ("scale: {dims: {N: 4, d: 8}, budget: 4}", "scale.budget: unknown key"),  # a constant factor is no longer a rule
    ("scale: {dims: {N: 4, d: 8}, budgets: 2}", "scale.budgets: unknown key"),
    ("no_device_case: ''", "no_device_case: give the reason"),
])
def test_bad_scale_keys_are_named(tmp_path, extra, needle):
    problems = _problems(tmp_path, extra)
    assert any(needle in p for p in problems), problems


# ------------------------------------------------------------- the verdicts


def test_every_reference_that_runs_on_fake_cuda_has_a_device_case(grader, catalogue):
    """Decided by running the references: the ones that read values or take no tensors say why not."""
    plans = {i: grader.prepared(s, 1).fake for i, s in catalogue.specs.items()}
    with_case = {i for i, p in plans.items() if any(f.device for f in p.functions)}
    assert {"one-hot-counts", "anchor-grid", "bev-scatter", "mha-padding", "pairwise-sqdist"} <= with_case
    for plan in plans.values():
        for fp in plan.functions:
            assert not fp.device_fault, fp.why_no_device
            assert fp.device or fp.why_no_device
            assert fp.scale or fp.why_no_scale
    hungarian = plans["detr-matching"].functions[0]
    assert not hungarian.device and "reads tensor values (.numpy())" in hungarian.why_no_device
    packing = plans["packing-mask"].functions[0]  # a data-dependent size (repeat_interleave): ShapeEnv
    assert packing.device and packing.shape_env and "no upper bound" in packing.why_no_scale
    moe = plans["moe-routing"].functions[0]  # nonzero per expert: counted at its upper bound
    assert moe.device and moe.scale and moe.reference_upper_bound
    assert "takes no tensors" in plans["conv-output-size"].functions[0].why_no_device


def test_device_mix_is_an_error_naming_the_lines_and_the_fix(grader):
    source = ("import torch\n\n\ndef combined_keep_mask(pad_mask):\n    T = pad_mask.shape[1]\n"
              "    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))\n"
              "    return causal[None, None] & pad_mask.bool()[:, None, None, :]\n")
    report = grader.grade("causal-padding-mask", source, FILE, seed=3)
    device = [c for c in report.cases if c.name == "device"]
    assert report.verdict == "error" and len(device) == 1 and device[0].verdict == "error"
    message = device[0].message
    assert "at line 7" in message and "made at line 6" in message and "device=x.device" in message
    assert device[0].line == 6
    assert all(c.verdict == "pass" for c in report.cases if c.name != "device")



def test_a_stub_returning_none_gets_no_memory_pass(grader):
    # its peak at scale is nothing: a `scale: pass` would tell the person its memory is fine
    report = grader.grade("pairwise-sqdist", "def pairwise_sq_dists(A, B):\n    pass\n", FILE, seed=3)
    assert report.verdict == "wrong" and not [c for c in report.cases if c.name == "scale"] and report.scale is None
    (note,) = [n for n in report.not_checked if n["check"] == "scale"]
    assert note["why"] == ("at N=2000, M=1500, d=512 it returns None where the reference returns a tensor: "
                           "no memory to compare")
    (device,) = [c for c in report.cases if c.name == "device"]
    assert device.verdict == "wrong" and device.message.endswith("value 0 is None where the reference returns a tensor")


def test_a_wrong_shape_is_still_memory_the_code_made(grader):
    report = grader.grade("pairwise-sqdist", "def pairwise_sq_dists(A, B):\n    return A @ A.T\n", FILE, seed=3)
    assert report.verdict == "wrong" and [c.verdict for c in report.cases if c.name == "scale"] == ["pass"]
    assert not [n for n in report.not_checked if n["check"] == "scale"]

def _sample(drill: str, name: str) -> tuple[str, str]:
    from grader.catalogue import load_catalogue

    spec = load_catalogue().get(drill)
    path = spec.path.parent / "solutions" / drill / name
    return path.read_text(), str(path)


@pytest.mark.slow  # grades through the sandbox
def test_the_naive_broadcast_grows_faster_in_d_and_is_named(grader):
    source = "def pairwise_sq_dists(A, B):\n    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)\n"
    report = grader.grade("pairwise-sqdist", source, FILE, seed=3)
    res = next(c for c in report.cases if c.name == "scale")
    assert report.verdict == "memory" and res.verdict == "memory"
    assert res.message.startswith("its peak memory grows faster in d: it grows as N*M*d; the reference's as N*M; "
                                  "at N=2000, M=1500, d=512 that is 11.4 GiB against 22.9 MiB")
    assert "an (N, M, d) float32 intermediate" in res.message
    assert report.trap is not None and report.trap.id == "naive-broadcast"
    row = report.to_dict()["scale"]["functions"]["pairwise_sq_dists"]
    assert row["faster_in"] == ["d"] and row["grows_as"] == "N*M*d" and row["reference_grows_as"] == "N*M"
    assert row["growth"]["d"] == {"solution": 1.0, "reference": 0.0}


@pytest.mark.slow  # grades through the sandbox
@pytest.mark.parametrize("name, ratio", [("ok_float64_centred_einsum.py", 3.6), ("ok_stacked.py", 6.4)])
def test_the_same_growth_with_a_larger_constant_passes_with_a_note(grader, name, ratio):
    source, path = _sample("pairwise-sqdist", name)
    report = grader.grade("pairwise-sqdist", source, path, seed=3)
    assert report.verdict == "pass" and report.trap is None
    note = next(n for n in report.notes if n.startswith("pairwise_sq_dists(): memory grows as the reference's (N*M)"))
    assert f"({ratio}x); not a failure" in note and "against 22.9 MiB" in note
    row = report.to_dict()["scale"]["functions"]["pairwise_sq_dists"]
    assert row["grows_as"] == row["reference_grows_as"] == "N*M" and row["faster_in"] == []


LAST_BY_ONEHOT = """import torch


def last_hidden(h, mask):
    T = h.shape[1]
    last = mask.long().sum(1) - 1
    onehot = (torch.arange(T, device=h.device)[None, :] == last[:, None]).to(h.dtype)  # (B, T)
    return (h * onehot[:, :, None]).sum(1)
"""


@pytest.mark.slow  # grades through the sandbox
def test_holding_the_size_of_its_input_is_not_memory(grader):
    # TRL-style (h * onehot).sum(1): its largest tensor is the size of h itself, so it grows as fast as its
    # input (B*T*d), faster only than the reference's B*T: a note with the figures, never `memory`
    report = grader.grade("ragged-to-padded", LAST_BY_ONEHOT, FILE, seed=3)
    (res,) = [c for c in report.cases if c.name == "scale" and c.function == "last_hidden"]
    assert res.verdict == "pass" and report.trap is None
    assert [c.verdict for c in report.cases if c.function == "last_hidden"] == ["pass"] * len(
        [c for c in report.cases if c.function == "last_hidden"])
    row = report.to_dict()["scale"]["functions"]["last_hidden"]
    assert row["grows_as"] == "B*T*d" and row["reference_grows_as"] == "B*T" and row["faster_in"] == []
    assert row["input_bytes"] == 8 * 4096 * 1024 * 4 + 8 * 4096 * 1  # h float32, the mask at its scale dtype
    note = next(n for n in report.notes if n.startswith("last_hidden(): memory grows faster than the reference's in d"))
    assert "no faster than its inputs' own size" in note and "its inputs hold 128 MiB; not a failure" in note


@pytest.mark.slow  # grades through the sandbox
def test_loralib_linear_with_data_reassigned_is_no_device_error(grader):
    source, path = _sample("lora", "bad_gradient_loralib_data_reassigned.py")
    report = grader.grade("lora", source, path, seed=3)
    # right on every case and on the device; it cannot train (no_grad and .data): only the gradient case fails
    assert all(c.verdict == "pass" for c in report.cases if c.kind.value != "gradient"), report.to_dict()
    assert [c.verdict for c in report.cases if c.name == "device"] == ["pass"]
    assert not [n for n in report.not_checked if n["function"] == "lora_forward"]


@pytest.mark.slow  # grades through the sandbox
def test_counting_by_one_hot_grows_as_n_times_k(grader):
    source, path = _sample("one-hot-counts", "bad_memory_eye_and_onehot_sum.py")
    report = grader.grade("one-hot-counts", source, path, seed=3)
    res = next(c for c in report.cases if c.name == "scale" and c.function == "class_counts")
    assert report.verdict == "memory" and res.verdict == "memory" and report.trap is None
    assert "grows faster in K: it grows as N*K; the reference's as N;" in res.message
    assert all(c.verdict == "pass" for c in report.cases if c.name != "scale")


def test_a_pass_carries_the_ratio_to_the_reference(grader):
    spec = grader.spec("mha-padding")
    report = grader.grade("mha-padding", Path(spec.reference_path).read_text(), str(spec.reference_path), seed=3)
    assert report.verdict == "pass"
    assert [c.verdict for c in report.cases if c.name == "device"] == ["pass"]
    out = json.loads(json.dumps(report.to_dict()))
    assert out["scale"]["text"].startswith("memory at scale (B=8, T=1024, S=2048, H=32, dh=128, d=4096): 1.0x the reference")


@pytest.mark.slow  # grades, with a Grader of its own
def test_without_fake_tensors_grading_degrades_with_a_note(monkeypatch, catalogue):
    from grader.engine import Grader

    monkeypatch.setattr(fake, "problem", lambda: "torch 9.9: fake tensors are not usable (ImportError: gone)")
    grader = Grader(catalogue)
    spec = grader.spec("masked-mean")
    report = grader.grade(spec.id, Path(spec.reference_path).read_text(), str(spec.reference_path), seed=3)
    assert report.verdict == "pass"
    assert not [c for c in report.cases if c.name in ("device", "scale")]
    assert "no device/scale check: torch 9.9: fake tensors are not usable (ImportError: gone)" in report.notes
    assert "no device/scale check" in report.to_dict()["notes"][-1]


@pytest.mark.slow  # grades, with a Grader of its own
def test_the_device_path_moves_inputs_and_brings_results_back(catalogue):
    """`check --device cuda` code path, exercised with a CPU device name (no GPU needed)."""
    from grader.engine import Grader

    grader = Grader(catalogue, device="cpu:0")
    spec = grader.spec("masked-mean")
    report = grader.grade(spec.id, Path(spec.reference_path).read_text(), str(spec.reference_path), seed=3)
    assert report.verdict == "pass", report.first_failure
    assert any(n.startswith("ran on cpu:0") for n in report.notes)


def test_check_device_cuda_without_a_gpu_says_so(tmp_path):
    from typer.testing import CliRunner

    from grader.fake.cuda import cuda_problem
    from trainer.cli import _register, app

    _register()
    if cuda_problem() is None:
        pytest.skip("a GPU is visible here")
    path = tmp_path / "s.py"
    path.write_text("def masked_mean(x, mask):\n    return x\n")
    result = CliRunner().invoke(app, ["check", "masked-mean", str(path), "--device", "cuda"])
    assert result.exit_code == 2
    assert "--device cuda needs a GPU" in result.output and "fake CUDA tensors" in result.output


def test_try_shows_the_device_case_and_the_scale_figures(grader):
    from grader.trace import trace
    from trainer.repl.trace_view import render_trace

    mixing = ("import torch\n\ndef masked_mean(x, mask):\n    m = (mask != 0).float()\n"
              "    total = (x.float() * m[..., None]).sum(1)\n    n = m.sum(1, keepdim=True)\n"
              "    zero = torch.zeros(total.shape)\n    return torch.where(n > 0, total / n.clamp(min=1), zero).to(x.dtype)\n")
    result = trace(grader, "masked-mean", mixing, FILE)
    gpu = result["calls"][0]["gpu"]
    assert gpu[0]["ok"] is False and "made at line 7" in gpu[0]["text"]
    text = "".join(t for _, t in render_trace(result))
    assert "device case (inputs on fake cuda:0 at B=8, T=4096, d=1024): error" in text
    spec = grader.spec("masked-mean")
    fine = trace(grader, "masked-mean", Path(spec.reference_path).read_text(), str(spec.reference_path))
    lines = [g["text"] for g in fine["calls"][0]["gpu"]]
    assert lines[0].endswith(": pass") and lines[1].startswith("memory at scale (B=8, T=4096, d=1024): 1.0x the reference")


@pytest.mark.slow
def test_doctor_reports_fake_tensors_and_cuda():
    from typer.testing import CliRunner

    from trainer.cli import _register, app

    _register()
    result = CliRunner().invoke(app, ["doctor", "--json"])
    data = json.loads(result.stdout)
    assert data["fake_tensors"]["available"] is True
    assert isinstance(data["cuda"]["available"], bool) and data["cuda"]["detail"]
    text = CliRunner().invoke(app, ["doctor"], env={"NO_COLOR": "1"}).stdout
    assert "fake tensors" in text and "cuda" in text


def test_validate_lists_what_applies_and_why_not(grader):
    from grader.authoring.validation import coverage_problems, fake_checks

    lines = fake_checks(grader, grader.spec("kv-cache"))
    assert lines[0].startswith("decode_step(): device case: yes; scale: yes (reference peak ")
    assert lines[0].endswith("at B=8, H=32, t=4096, dh=128, growing as B*H*t*dh)")
    assert lines[1] == "kv_cache_bytes(): device case: no (it takes no tensors); scale: no (it takes no tensors)"
    nms = fake_checks(grader, grader.spec("detr-matching"))[0]
    assert "device case: no (the reference reads tensor values (.numpy())" in nms
    import dataclasses

    unscaled = dataclasses.replace(grader.spec("masked-mean"), scale=None)
    assert any("scale: declare production-like sizes" in p for p in coverage_problems(unscaled))


def test_a_result_left_on_the_cpu_names_the_line_that_made_it(grader):
    source = ("import torch\n\n\ndef token_logprobs(logits, ids):\n    B, T, V = logits.shape\n"
              "    out = torch.empty(B, T, dtype=logits.dtype)\n"
              "    out[:] = logits.float().log_softmax(-1).gather(-1, ids[..., None])[..., 0]\n    return out\n")
    report = grader.grade("token-logprobs", source, FILE, seed=3)
    device = next(c for c in report.cases if c.name == "device")
    assert device.verdict == "error" and device.line == 6
    assert "returns its result on the CPU" in device.message and "(at line 6: out = torch.empty(B, T" in device.message


def test_doubled_sizes_double_one_named_dimension_and_derived_ones_follow(catalogue):
    grown = scale.grown_sizes(catalogue.get("mha-padding"))
    assert list(grown) == ["B", "T", "S", "H", "dh"]  # d = H * dh is derived: never doubled by itself
    assert grown["H"] == {"B": 8, "T": 1024, "S": 2048, "H": 64, "dh": 128, "d": 8192}
    assert grown["T"]["T"] == 2048 and grown["T"]["d"] == 4096
    bev = scale.grown_sizes(catalogue.get("bev-scatter"))
    assert list(bev) == ["N", "C", "X"] and bev["X"]["Y"] == 512  # a square grid: Y is X
    assert "n_keep" not in scale.grown_sizes(catalogue.get("class-aware-nms"))  # a size of 0 stays 0


def test_production_sizes_everywhere(catalogue):
    """Every drill whose functions take tensors has scale sizes, and none is a toy (issue 22: bev's 7 x 7)."""
    for spec in catalogue.specs.values():
        if any(a.is_tensor for f in spec.functions for a in f.args):
            assert spec.scale is not None, spec.id
            assert max(spec.scale.dims.values()) >= 128, (spec.id, spec.scale.dims)
    assert min(catalogue.get("bev-scatter").scale.dims[d] for d in ("X", "Y")) >= 200


def test_the_channel_keeps_a_data_assignment_and_refuses_a_malformed_one():
    from grader.sandbox.channel import ProtocolError, check_fake_report

    run = {"sizes": "small", "device": "cuda", "status": "ok", "peak": 8, "ops": 1, "unknown_bytes": False,
           "upper_bound": False, "outputs": [], "data_moved": [9, "p.data = W"]}
    (entry,) = check_fake_report([{"function": "f", "runs": [run]}], {"f"})
    assert entry["runs"][0]["data_moved"] == [9, "p.data = W"]
    with pytest.raises(ProtocolError):
        check_fake_report([{"function": "f", "runs": [dict(run, data_moved="line 9")]}], {"f"})


NAIVE_WITH_A_READ = """def pairwise_sq_dists(A, B):
    s = float(A.abs().max())  # a value read: fake tensors have none
    diff = (A / s)[:, None, :] - (B / s)[None, :, :]  # (N, M, d)
    return (diff ** 2).sum(-1) * s * s
"""

RAGGED_WITH_A_READ = """import torch


def last_hidden(h, mask):
    lengths = mask.long().sum(1)
    T = int(lengths.max())  # as ragged answers often do
    return h[:, :T][torch.arange(h.shape[0]), lengths - 1]
"""


@pytest.mark.slow  # grades through the sandbox
def test_a_value_read_does_not_switch_the_memory_check_off(grader):
    # fake tensors stop at float(...): the growth is measured on real CPU tensors at reduced sizes instead
    report = grader.grade("pairwise-sqdist", NAIVE_WITH_A_READ, FILE, seed=3)
    (res,) = [c for c in report.cases if c.name == "scale"]
    assert report.verdict == "memory" and res.verdict == "memory"
    assert res.message.startswith("its peak memory grows faster in d: it grows as N*M*d; the reference's as N*M; "
                                  "measured on real CPU tensors at N=250, M=187, d=64 and with each dimension doubled, "
                                  "as fake tensors cannot follow the code (it reads tensor values")
    row = report.to_dict()["scale"]["functions"]["pairwise_sq_dists"]
    assert row["measured"] == "real" and row["measured_sizes"] == {"N": 250, "M": 187, "d": 64}
    assert row["faster_in"] == ["d"] and row["peak_bytes"] >= 250 * 187 * 64 * 4
    assert not [n for n in report.not_checked if n["check"] == "scale"]


@pytest.mark.slow  # grades through the sandbox
def test_int_of_lengths_max_is_measured_for_real_and_passes(grader):
    report = grader.grade("ragged-to-padded", RAGGED_WITH_A_READ, FILE, seed=3)
    (res,) = [c for c in report.cases if c.name == "scale" and c.function == "last_hidden"]
    assert res.verdict == "pass" and res.message.startswith("measured on real CPU tensors at B=6, T=256, d=64")
    row = report.to_dict()["scale"]["functions"]["last_hidden"]
    assert row["measured"] == "real" and row["faster_in"] == []
    assert "on real CPU tensors at B=6, T=256, d=64 (fake tensors cannot follow the code)" in report.scale["text"]
    assert not [n for n in report.not_checked if n["check"] == "scale"]


def test_the_real_meter_counts_intermediates_and_not_the_inputs():
    from grader.fake import real

    ns = _compiled(NAIVE_WITH_A_READ)
    args = [torch.randn(20, 8), torch.randn(15, 8)]
    res = real.measure(ns["pairwise_sq_dists"], args, FILE)
    assert res["status"] == "ok" and 20 * 15 * 8 * 4 <= res["peak"] < 4 * 20 * 15 * 8 * 4
    assert args[0].shape == (20, 8)  # the inputs are copies: a solution's in-place writes never reach the next run


def test_reduced_sizes_bring_the_larger_of_reference_and_inputs_near_the_budget(catalogue):
    from grader.fake import real

    spec = catalogue.get("pairwise-sqdist")
    sizes = real.reduced_sizes(spec, dict(spec.scale.dims), {"N": 1.0, "M": 1.0, "d": 0.0}, 24 * 2**20)
    assert sizes == {"N": 250, "M": 187, "d": 64}  # 2000, 1500, 512 divided by 8: 24 MiB / 64 <= 1 MiB
    spec = catalogue.get("ragged-to-padded")  # B = 8 stays at its largest case size, 6
    assert real.reduced_sizes(spec, dict(spec.scale.dims), {"B": 1.0, "T": 1.0, "d": 1.0}, 128 * 2**20) == \
        {"B": 6, "T": 256, "d": 64}


def test_the_channel_keeps_a_real_run_and_refuses_a_malformed_one():
    from grader.sandbox.channel import ProtocolError, check_fake_report

    run = {"sizes": "real", "dim": "d", "status": "ok", "peak": 1024}
    (entry,) = check_fake_report([{"function": "f", "runs": [run]}], {"f"})
    assert entry["runs"] == [{"sizes": "real", "dim": "d", "status": "ok", "peak": 1024}]
    for bad in (dict(run, dim=3), dict(run, peak=-1), dict(run, outputs=[]), dict(run, status="fine")):
        with pytest.raises(ProtocolError):
            check_fake_report([{"function": "f", "runs": [bad]}], {"f"})


def _real_judged(peaks: dict[str, int]) -> tuple:
    """The scale case from real runs at reduced sizes N=125000, K=125 against one-hot counts' reference figures."""
    from grader.fake import real

    fp = fake.FunctionPlan("class_counts", scale=True)
    fp.real = real.Probe({"N": 125000, "K": 125}, [], reference_peak=1_000_000,
                         reference_grown={"N": 2_000_000, "K": 1_000_000}, input_bytes=1_000_000,
                         input_grown={"N": 2_000_000, "K": 1_000_000})
    run = {"sizes": "scale", "device": "cuda", "status": "raised",
           "exc": {"type": "NeedsValues", "message": "data-dependent: .tolist()", "device_mix": False,
                   "needs_values": True}}
    runs = [{"sizes": "real", "dim": d, "status": "ok", "peak": p} for d, p in peaks.items()]
    return scale._scale_case(fp, fake.Plan(None, {"N": 1000000, "K": 1000}), run, [], runs)


def test_real_runs_far_below_the_reference_are_no_memory_whatever_their_growth():
    # a Python loop's (K,) counts: faster in K than the reference's N, but 1000 bytes against 1 MB; at reduced
    # sizes the growth of so small a peak says nothing about production sizes
    res, row, _ = _real_judged({"": 1000, "N": 1000, "K": 2000})
    assert res.verdict == "pass" and row["measured"] == "real" and row["faster_in"] == []
    res, row, _ = _real_judged({"": 20_000_000, "N": 40_000_000, "K": 40_000_000})  # an (N, K) one-hot, 20x over
    assert res.verdict == "memory" and row["faster_in"] == ["K"]
    assert "measured on real CPU tensors at N=125000, K=125" in res.message


def test_a_lost_fake_run_without_real_inputs_says_why_neither_measured():
    fp = fake.FunctionPlan("f", scale=True, why_no_real="the inputs could not be built at reduced sizes (ValueError: x)")
    run = {"sizes": "scale", "device": "cpu", "status": "raised",
           "exc": {"type": "NeedsValues", "message": "data-dependent: .tolist()", "device_mix": False,
                   "needs_values": True}}
    res, row, note = scale._scale_case(fp, fake.Plan(None, {"N": 8}), run, [], [])
    assert res is None and row is None and note.why.endswith(
        "; nor on real tensors: the inputs could not be built at reduced sizes (ValueError: x)")


def test_every_dimension_has_a_size_of_its_own_at_scale(catalogue):
    """Issue 33: gqa's B = H_kv = 8 and moe-routing's B = E = 8 at scale made a memory message name
    "(1, B*T, B*d)" for a tensor (1, B*T, E*d). Every shipped spec's scale sizes are pairwise distinct."""
    from grader.authoring.validation import shared_scale_sizes

    assert {s.id: shared_scale_sizes(s) for s in catalogue.specs.values() if shared_scale_sizes(s)} == {}


def test_validate_names_file_and_field_of_a_shared_scale_size(catalogue):
    import dataclasses

    from grader.authoring.validation import coverage_problems
    from grader.spec.records import ScaleSpec

    spec = catalogue.get("moe-routing")
    shared = dataclasses.replace(spec, scale=ScaleSpec({**spec.scale.dims, "B": 8, "E": 8}))
    problems = [p for p in coverage_problems(shared) if "scale.dims" in p]
    assert len(problems) == 1
    line = next(i for i, t in enumerate(spec.path.read_text().splitlines(), 1) if t.startswith("scale:"))
    assert problems[0].startswith(f"{spec.path}:{line}: scale.dims: B and E are both 8 at scale")
    bev = catalogue.get("bev-scatter")  # Y: X, a square grid, is an alias and shares X's size by design
    assert not [p for p in coverage_problems(bev) if "scale.dims" in p]
