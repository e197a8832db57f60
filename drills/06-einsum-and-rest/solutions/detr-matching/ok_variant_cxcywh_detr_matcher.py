# variant: box_format=cxcywh
# DETR's HungarianMatcher (models/matcher.py): L1 on the (cx, cy, w, h) boxes as they come,
# GIoU after converting both sets to corners.
import torch
from scipy.optimize import linear_sum_assignment
from torchvision.ops import box_convert, generalized_box_iou


@torch.no_grad()
def hungarian_match(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class=1.0, w_l1=5.0, w_giou=2.0):
    out_prob = pred_logits.float().softmax(-1)  # (Q, K+1)
    out_bbox, tgt_bbox = pred_boxes.float(), gt_boxes.float()
    cost_class = -out_prob[:, gt_labels]  # (Q, N)
    cost_bbox = torch.cdist(out_bbox, tgt_bbox, p=1)
    cost_giou = -generalized_box_iou(box_convert(out_bbox, "cxcywh", "xyxy"), box_convert(tgt_bbox, "cxcywh", "xyxy"))
    C = w_l1 * cost_bbox + w_class * cost_class + w_giou * cost_giou
    i, j = linear_sum_assignment(C.cpu())
    return torch.as_tensor(i, dtype=torch.int64), torch.as_tensor(j, dtype=torch.int64)


def match_targets(query_idx, gt_idx, gt_labels, Q, no_object):
    target = torch.full((Q,), no_object, dtype=torch.int64, device=gt_labels.device)
    target[query_idx] = gt_labels[gt_idx]
    return target
