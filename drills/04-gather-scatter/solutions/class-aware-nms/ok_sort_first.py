import torch
from torchvision.ops import nms
def class_aware_nms(boxes, scores, classes, iou_threshold):
    order = torch.argsort(scores.float(), descending=True)
    b = boxes.float()[order]
    off = (b.max() - b.min() + 1) * classes[order].float()
    keep = nms(b + off[:, None], scores.float()[order], iou_threshold)
    return order[keep]
