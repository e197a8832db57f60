# trap: none
# DETR's own matcher (models/matcher.py), adapted to x1y1x2y2 inputs: its L1 term
# is taken on (cx, cy, w, h) boxes, its GIoU on corners. This contract takes the
# L1 distance on the (x1, y1, x2, y2) vectors it gives, so the costs differ.
import torch
from scipy.optimize import linear_sum_assignment
from torchvision.ops import generalized_box_iou


def _xyxy_to_cxcywh(b):
    x1, y1, x2, y2 = b.unbind(-1)
    return torch.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1], dim=-1)


@torch.no_grad()
def hungarian_match(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class=1.0, w_l1=5.0, w_giou=2.0):
    out_prob = pred_logits.float().softmax(-1)
    out_bbox, tgt_bbox = pred_boxes.float(), gt_boxes.float()
    cost_class = -out_prob[:, gt_labels]
    cost_bbox = torch.cdist(_xyxy_to_cxcywh(out_bbox), _xyxy_to_cxcywh(tgt_bbox), p=1)
    cost_giou = -generalized_box_iou(out_bbox, tgt_bbox)
    C = w_l1 * cost_bbox + w_class * cost_class + w_giou * cost_giou
    i, j = linear_sum_assignment(C.cpu())
    return torch.as_tensor(i, dtype=torch.int64), torch.as_tensor(j, dtype=torch.int64)


def match_targets(query_idx, gt_idx, gt_labels, Q, no_object):
    target = torch.full((Q,), no_object, dtype=torch.int64)
    target[query_idx] = gt_labels[gt_idx]
    return target
