# trap: plain-nms
from torchvision.ops import nms


def class_aware_nms(boxes, scores, classes, iou_threshold):
    return nms(boxes.float(), scores.float(), iou_threshold)
