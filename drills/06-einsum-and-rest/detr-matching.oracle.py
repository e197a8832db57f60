"""The oracle for detr-matching: DETR's matching cost (torchvision's GIoU), solved by scipy's linear_sum_assignment.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch


def detr_hungarian(pred_logits: torch.Tensor, pred_boxes: torch.Tensor, gt_labels: torch.Tensor, gt_boxes: torch.Tensor,
                   w_class: float = 1.0, w_l1: float = 5.0, w_giou: float = 2.0, *,
                   box_format: str = "xyxy") -> tuple[torch.Tensor, torch.Tensor]:
    """DETR's matcher: (Q, N) cost = -w_class * softmax prob of the gt class + w_l1 * L1 distance
    of the boxes as given (box_format: xyxy or cxcywh) - w_giou * GIoU (torchvision) of the boxes
    as corners, solved by scipy's linear_sum_assignment."""
    from scipy.optimize import linear_sum_assignment
    from torchvision.ops import box_convert, generalized_box_iou

    prob = pred_logits.double().softmax(-1)  # (Q, K+1)
    pb, gb = pred_boxes.double(), gt_boxes.double()
    giou = generalized_box_iou(box_convert(pb, box_format, "xyxy"), box_convert(gb, box_format, "xyxy"))
    cost = -w_class * prob[:, gt_labels] + w_l1 * torch.cdist(pb, gb, p=1) - w_giou * giou  # (Q, N)
    rows, cols = linear_sum_assignment(cost.numpy())
    return torch.as_tensor(rows, dtype=torch.int64), torch.as_tensor(cols, dtype=torch.int64)
