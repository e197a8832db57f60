import torch
from torchvision import ops


def class_aware_nms(boxes, scores, classes, iou_threshold):
    b = boxes.to(torch.float32)
    b = b - b.min()                       # now every coordinate is >= 0
    off = (b.max() + 1) * classes.float()
    keep = ops.nms(b + off.unsqueeze(1), scores.to(torch.float32), float(iou_threshold))
    return keep.long()
