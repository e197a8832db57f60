# trap: cost-n-by-q
import torch
from scipy.optimize import linear_sum_assignment
from torchvision.ops import generalized_box_iou


def hungarian_match(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class=1.0, w_l1=5.0, w_giou=2.0):
    prob = pred_logits.float().softmax(-1)  # (Q, K+1)
    C = (-w_class * prob[:, gt_labels].T
         + w_l1 * torch.cdist(gt_boxes.float(), pred_boxes.float(), p=1)
         - w_giou * generalized_box_iou(gt_boxes.float(), pred_boxes.float()))  # (N, Q)
    q, g = linear_sum_assignment(C.numpy())
    return torch.as_tensor(q), torch.as_tensor(g)


def match_targets(query_idx, gt_idx, gt_labels, Q, no_object):
    t = torch.full((Q,), no_object, dtype=torch.int64)
    t[query_idx] = gt_labels[gt_idx]
    return t
