"""The `must_call` spec key: a named function must be called an exact number of times per call."""
from __future__ import annotations

from tests.paths import REPO

from pathlib import Path

import pytest

from grader.spec import SpecError
from grader.spec.parse import parse_spec

ROOT = REPO

NMS_ONCE = """
import torch
from torchvision.ops import nms

def class_aware_nms(boxes, scores, classes, iou_threshold):
    b = boxes.float()
    span = b.max() - b.min() + 1
    return nms(b + classes.float()[:, None] * span, scores.float(), iou_threshold)
"""

NMS_TWICE = NMS_ONCE.replace("    return nms(", "    nms(b, scores.float(), iou_threshold)\n    return nms(")

NMS_NEVER = """
import torch

def class_aware_nms(boxes, scores, classes, iou_threshold):
    return torch.argsort(scores, descending=True)
"""


def test_exact_count_passes(grader):
    report = grader.grade("class-aware-nms", NMS_ONCE, "<once>", seed=3)
    assert report.verdict == "pass", [(c.name, c.message) for c in report.cases if c.verdict != "pass"]


@pytest.mark.parametrize("source,count", [(NMS_TWICE, "2 times"), (NMS_NEVER, "0 times")])
def test_wrong_count_is_banned(grader, source, count):
    report = grader.grade("class-aware-nms", source, "<src>", seed=3)
    assert report.verdict == "banned"
    assert all(c.verdict == "banned" for c in report.cases if c.name not in ("device", "scale"))  # the real cases
    assert f"called torch.ops.torchvision.nms {count}; this drill requires exactly 1" in report.cases[0].message


def test_must_call_schema(tmp_path: Path):
    ref = ROOT / "drills/04-gather-scatter/class-aware-nms.yaml"
    text = ref.read_text(encoding="utf-8").replace("torch.ops.torchvision.nms: 1", "torch.ops.torchvision.nms: -1")
    path = tmp_path / "class-aware-nms.yaml"
    path.write_text(text, encoding="utf-8")
    (tmp_path / "class-aware-nms.py").write_text((ROOT / "drills/04-gather-scatter/class-aware-nms.py").read_text())
    with pytest.raises(SpecError, match="must_call"):
        parse_spec(path)
    spec = parse_spec(ref)
    assert spec.must_call == {"torch.ops.torchvision.nms": 1}
