# trap: none
# Upcasts the boxes for the CPU kernel but not the scores: nms refuses
# fp16 scores next to float32 boxes.
import torch
from torchvision.ops import nms


def class_aware_nms(boxes, scores, classes, iou_threshold):
    b = boxes.float()
    span = b.max() - b.min() + 1
    return nms(b + classes[:, None].float() * span, scores, iou_threshold)
