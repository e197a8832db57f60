import torch
import torchvision
def class_aware_nms(boxes, scores, classes, iou_threshold):
    b = boxes.double()
    sx = b[:, [0, 2]].max() - b[:, [0, 2]].min() + 1
    sy = b[:, [1, 3]].max() - b[:, [1, 3]].min() + 1
    off = torch.stack([sx, sy, sx, sy]) * classes.double()[:, None]
    return torchvision.ops.nms(b + off, scores.double(), iou_threshold)
