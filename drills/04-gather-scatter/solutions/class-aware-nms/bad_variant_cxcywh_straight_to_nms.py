# trap: boxes-as-corners
# variant: box_format=cxcywh
import torch
from torchvision.ops import nms


def class_aware_nms(boxes, scores, classes, iou_threshold):
    b = boxes.to(torch.float32)
    offset = (b.max() - b.min() + 1) * classes.to(torch.float32)
    return nms(b + offset[:, None], scores.to(torch.float32), iou_threshold)
