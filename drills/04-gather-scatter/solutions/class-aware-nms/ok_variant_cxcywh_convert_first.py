# variant: box_format=cxcywh
# YOLOv5-style: (cx, cy, w, h) to corners first (xywh2xyxy), then one class-offset nms.
import torch
from torchvision.ops import nms


def xywh2xyxy(x):
    y = x.clone()
    y[:, 0] = x[:, 0] - x[:, 2] / 2  # top-left x
    y[:, 1] = x[:, 1] - x[:, 3] / 2  # top-left y
    y[:, 2] = x[:, 0] + x[:, 2] / 2  # bottom-right x
    y[:, 3] = x[:, 1] + x[:, 3] / 2  # bottom-right y
    return y


def class_aware_nms(boxes, scores, classes, iou_threshold):
    box = xywh2xyxy(boxes).float()  # converted in the input dtype, then upcast for the CPU kernel
    span = box.max() - box.min() + 1
    c = classes[:, None].float() * span
    return nms(box + c, scores.float(), iou_threshold)
