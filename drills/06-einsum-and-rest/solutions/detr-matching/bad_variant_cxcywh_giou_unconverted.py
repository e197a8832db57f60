# trap: giou-unconverted
# variant: box_format=cxcywh
import torch
from scipy.optimize import linear_sum_assignment
from torchvision.ops import generalized_box_iou


def hungarian_match(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class=1.0, w_l1=5.0, w_giou=2.0):
    prob = pred_logits.double().softmax(-1)
    pb, gb = pred_boxes.double(), gt_boxes.double()
    cost = -w_class * prob[:, gt_labels] + w_l1 * torch.cdist(pb, gb, p=1) - w_giou * generalized_box_iou(pb, gb)
    rows, cols = linear_sum_assignment(cost.numpy())
    return torch.from_numpy(rows).long(), torch.from_numpy(cols).long()


def match_targets(query_idx, gt_idx, gt_labels, Q, no_object):
    target = torch.full((Q,), no_object, dtype=torch.int64)
    target[query_idx] = gt_labels[gt_idx]
    return target
