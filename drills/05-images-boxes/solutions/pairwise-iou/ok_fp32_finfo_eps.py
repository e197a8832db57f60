import torch


def box_iou(a, b):
    a32, b32 = a.float(), b.float()
    lt = torch.max(a32[:, None, :2], b32[:, :2]); rb = torch.min(a32[:, None, 2:], b32[:, 2:])
    inter = (rb - lt).clamp(min=0).prod(2)
    area = lambda t: (t[:, 2] - t[:, 0]) * (t[:, 3] - t[:, 1])
    union = area(a32)[:, None] + area(b32) - inter
    return (inter / union.clamp(min=torch.finfo(torch.float32).eps)).to(a.dtype)
