import torch
from torchvision.ops import nms


def class_aware_nms(boxes, scores, classes, iou_threshold):
    keep = []
    for c in classes.unique():
        idx = torch.where(classes == c)[0]
        keep.append(idx[nms(boxes[idx].float(), scores[idx].float(), iou_threshold)])
    keep = torch.cat(keep)
    return keep[scores[keep].argsort(descending=True)]
