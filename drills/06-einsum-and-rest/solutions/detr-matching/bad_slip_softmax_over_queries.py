# trap: none
# The class probabilities are a softmax over dim 0 (the queries), not over the classes.
import torch
from scipy.optimize import linear_sum_assignment
from torchvision.ops import generalized_box_iou


def hungarian_match(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class=1.0, w_l1=5.0, w_giou=2.0):
    prob = pred_logits.float().softmax(0)
    pb, gb = pred_boxes.float(), gt_boxes.float()
    cost = (-w_class * prob[:, gt_labels] + w_l1 * torch.cdist(pb, gb, p=1)
            - w_giou * generalized_box_iou(pb, gb))
    q, g = linear_sum_assignment(cost.numpy())
    return torch.as_tensor(q, dtype=torch.int64), torch.as_tensor(g, dtype=torch.int64)


def match_targets(query_idx, gt_idx, gt_labels, Q, no_object):
    target = torch.full((Q,), no_object, dtype=torch.int64)
    target[query_idx] = gt_labels[gt_idx]
    return target
