# function: torchvision.ops.batched_nms
from torchvision.ops import boxes as box_ops


def class_aware_nms(boxes, scores, classes, iou_threshold: float):
    return box_ops._batched_nms_coordinate_trick(boxes.float(), scores.float(), classes, iou_threshold)
