# trap: none
# partial: fp16-not-upcast
# torchvision's _batched_nms_coordinate_trick copied without the float upcast: nms raises on fp16
# boxes, and the offset max + 1 is too small once coordinates go negative (a second mistake).
import torch
from torchvision.ops import nms


def class_aware_nms(boxes, scores, classes, iou_threshold):
    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64, device=boxes.device)
    max_coordinate = boxes.max()
    offsets = classes.to(boxes) * (max_coordinate + torch.tensor(1).to(boxes))
    boxes_for_nms = boxes + offsets[:, None]
    keep = nms(boxes_for_nms, scores, iou_threshold)
    return keep
