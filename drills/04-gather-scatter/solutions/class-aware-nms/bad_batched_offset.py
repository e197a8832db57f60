# trap: offset-max-plus-one
from torchvision.ops import nms


def class_aware_nms(boxes, scores, classes, iou_threshold):
    boxes = boxes.float()
    max_coordinate = boxes.max()
    offsets = classes.to(boxes) * (max_coordinate + 1)
    return nms(boxes + offsets[:, None], scores.float(), iou_threshold)
