# trap: none
# Right in every case, but it cannot train: its backward is NaN where the forward hid a 0/0 or a sqrt at zero.
import torch


def box_iou(a, b):
    lt = torch.maximum(a[:, None, :2], b[None, :, :2])
    rb = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    wa = (a[:, 2:] - a[:, :2]).prod(-1)
    wb = (b[:, 2:] - b[:, :2]).prod(-1)
    iou = inter / (wa.unsqueeze(1) + wb.unsqueeze(0) - inter)
    return torch.nan_to_num(iou, nan=0.0)
