from torchvision.ops import batched_nms


def class_aware_nms(boxes, scores, classes, iou_threshold):
    return batched_nms(boxes.float(), scores.float(), classes, iou_threshold)
