import torchvision


def box_iou(a, b):
    return torchvision.ops.boxes.box_iou(a, b).nan_to_num(0.0)
