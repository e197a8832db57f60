"""The oracle for roi-align: torchvision.ops.roi_align.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch


def torchvision_roi_align(features: torch.Tensor, rois: torch.Tensor, output_size: tuple[int, int],
                          spatial_scale: float, sampling_ratio: int, *, aligned: bool = False) -> torch.Tensor:
    """torchvision.ops.roi_align with rois as an (M, 5) tensor (batch index, x1, y1, x2, y2); `aligned` as
    torchvision names it (False, its default: no half-pixel shift, sizes at least 1)."""
    from torchvision.ops import roi_align

    return roi_align(features, rois, tuple(output_size), spatial_scale=spatial_scale,
                     sampling_ratio=sampling_ratio, aligned=aligned)
