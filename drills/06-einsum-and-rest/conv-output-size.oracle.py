"""The oracle for conv-output-size: the heights F.conv2d and F.conv_transpose2d actually produce.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch


def conv2d_out_size(H: int, k: int, s: int, p: int, d: int = 1) -> int:
    """The height F.conv2d actually produces for an (H, 1) input, kernel (k, 1), stride s, padding p, dilation d."""
    import torch.nn.functional as F

    x = torch.zeros(1, 1, H, 1, dtype=torch.float64)
    w = torch.zeros(1, 1, k, 1, dtype=torch.float64)
    return int(F.conv2d(x, w, stride=(s, 1), padding=(p, 0), dilation=(d, 1)).shape[2])


def conv_transpose2d_out_size(H: int, k: int, s: int, p: int, output_padding: int = 0) -> int:
    """The height F.conv_transpose2d actually produces for an (H, 1) input."""
    import torch.nn.functional as F

    x = torch.zeros(1, 1, H, 1, dtype=torch.float64)
    w = torch.zeros(1, 1, k, 1, dtype=torch.float64)
    return int(F.conv_transpose2d(x, w, stride=(s, 1), padding=(p, 0), output_padding=(output_padding, 0)).shape[2])
