import numpy as np
import scipy.optimize
import torch


def _giou(a, b):
    # a (Q, 4), b (N, 4) -> (Q, N)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    union = area_a[:, None] + area_b[None, :] - inter
    lt2 = torch.min(a[:, None, :2], b[None, :, :2])
    rb2 = torch.max(a[:, None, 2:], b[None, :, 2:])
    hull = (rb2 - lt2).prod(-1)
    return inter / union - (hull - union) / hull


def hungarian_match(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class=1.0, w_l1=5.0, w_giou=2.0):
    p = pred_logits.double().softmax(-1)
    a, b = pred_boxes.double(), gt_boxes.double()
    l1 = (a[:, None, :] - b[None, :, :]).abs().sum(-1)
    cost = -w_class * p[:, gt_labels] + w_l1 * l1 - w_giou * _giou(a, b)  # (Q, N)
    g, q = scipy.optimize.linear_sum_assignment(cost.T.numpy())  # solved as (N, Q)
    order = np.argsort(q)
    return torch.from_numpy(q[order]).long(), torch.from_numpy(g[order]).long()


def match_targets(query_idx, gt_idx, gt_labels, Q, no_object):
    t = [no_object] * Q
    for qi, gi in zip(query_idx.tolist(), gt_idx.tolist()):
        t[qi] = int(gt_labels[gi])
    return torch.tensor(t)
