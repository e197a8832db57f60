# trap: none
# The per-box offset is (N,) and is added to (N, 4) boxes without [:, None].
import torch
from torchvision.ops import nms


def class_aware_nms(boxes, scores, classes, iou_threshold):
    b = boxes.float()
    span = b.max() - b.min() + 1
    return nms(b + classes.float() * span, scores.float(), iou_threshold)
