"""Oracles for part 6 (einsum and the rest): library implementations named by specs."""
from __future__ import annotations

import torch

# Each engineer adds their drill's oracles below and registers them in ORACLES at the end.


# ---------------------------------------------------------------- einsum-read

def einsum_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """torch.einsum("bthd,bshd->bhts", q, k): (B, T, H, dh) x (B, S, H, dh) -> (B, H, T, S)."""
    return torch.einsum("bthd,bshd->bhts", q, k)


# ------------------------------------------------------------- detr-matching

def detr_hungarian(pred_logits: torch.Tensor, pred_boxes: torch.Tensor, gt_labels: torch.Tensor, gt_boxes: torch.Tensor,
                   w_class: float = 1.0, w_l1: float = 5.0, w_giou: float = 2.0) -> tuple[torch.Tensor, torch.Tensor]:
    """DETR's matcher: (Q, N) cost = -w_class * softmax prob of the gt class + w_l1 * L1 box
    distance - w_giou * GIoU (torchvision), solved by scipy's linear_sum_assignment."""
    from scipy.optimize import linear_sum_assignment
    from torchvision.ops import generalized_box_iou

    prob = pred_logits.double().softmax(-1)  # (Q, K+1)
    pb, gb = pred_boxes.double(), gt_boxes.double()
    cost = (-w_class * prob[:, gt_labels] + w_l1 * torch.cdist(pb, gb, p=1)
            - w_giou * generalized_box_iou(pb, gb))  # (Q, N)
    rows, cols = linear_sum_assignment(cost.numpy())
    return torch.as_tensor(rows, dtype=torch.int64), torch.as_tensor(cols, dtype=torch.int64)


ORACLES = {
    "einsum_scores": einsum_scores,
    "detr_hungarian": detr_hungarian,
}


# ---------------------------------------------------------- conv-output-size

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


ORACLES.update({
    "conv2d_out_size": conv2d_out_size,
    "conv_transpose2d_out_size": conv_transpose2d_out_size,
})
