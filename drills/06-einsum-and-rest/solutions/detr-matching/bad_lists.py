import torch
from scipy.optimize import linear_sum_assignment
from torchvision.ops import generalized_box_iou


def hungarian_match(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class=1.0, w_l1=5.0, w_giou=2.0):
    C = (-w_class * pred_logits.float().softmax(-1)[:, gt_labels]
         + w_l1 * torch.cdist(pred_boxes.float(), gt_boxes.float(), p=1)
         - w_giou * generalized_box_iou(pred_boxes.float(), gt_boxes.float()))
    i, j = linear_sum_assignment(C.numpy())
    return i.tolist(), j.tolist()


def match_targets(query_idx, gt_idx, gt_labels, Q, no_object):
    t = torch.full((Q,), no_object, dtype=torch.int64)
    t[query_idx] = gt_labels[gt_idx]
    return t
