# device: mixes CPU tensors with the inputs (correct on a CPU, an error on a GPU)
import torch
from scipy.optimize import linear_sum_assignment
from torchvision.ops import generalized_box_iou


def hungarian_match(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class=1.0, w_l1=5.0, w_giou=2.0):
    out_prob = pred_logits.float().softmax(-1)
    cost_class = -out_prob[:, gt_labels]
    cost_bbox = torch.cdist(pred_boxes.float(), gt_boxes.float(), p=1)
    cost_giou = -generalized_box_iou(pred_boxes.float(), gt_boxes.float())
    C = w_l1 * cost_bbox + w_class * cost_class + w_giou * cost_giou
    i, j = linear_sum_assignment(C.numpy())
    return torch.as_tensor(i, dtype=torch.int64), torch.as_tensor(j, dtype=torch.int64)


def match_targets(query_idx, gt_idx, gt_labels, Q, no_object):
    t = torch.full((Q,), no_object, dtype=torch.int64)
    t[query_idx] = gt_labels[gt_idx]
    return t
