# trap: sorted-by-index  (the right boxes kept, but torch.unique returns them sorted by index, not by score)
import torch
import torchvision


def class_aware_nms(boxes, scores, classes, iou_threshold):
    b = boxes.float()
    shift = (b.max() - b.min() + 1) * classes.float()
    keep = torchvision.ops.nms(b + shift[:, None], scores.float(), iou_threshold)
    return torch.unique(keep)
