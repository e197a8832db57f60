from torchvision.ops import box_iou as tv_iou


def box_iou(a, b):
    return tv_iou(a, b).nan_to_num(0.0)
