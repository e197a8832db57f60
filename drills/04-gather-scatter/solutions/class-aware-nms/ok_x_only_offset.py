import torch
from torchvision.ops.boxes import nms


def class_aware_nms(boxes, scores, classes, iou_threshold):
    # shifting x1 and x2 alone is enough: disjoint x ranges mean zero intersection
    b = boxes.double().clone()
    span = (b[:, [0, 2]].max() - b[:, [0, 2]].min()) + 1.0
    b[:, 0] += classes.double() * span
    b[:, 2] += classes.double() * span
    return nms(b, scores.double(), iou_threshold)
