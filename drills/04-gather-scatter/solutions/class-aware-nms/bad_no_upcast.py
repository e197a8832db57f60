# trap: fp16-not-upcast
from torchvision.ops import nms


def class_aware_nms(boxes, scores, classes, iou_threshold):
    span = boxes.max() - boxes.min() + 1
    return nms(boxes + classes[:, None].to(boxes.dtype) * span, scores, iou_threshold)
