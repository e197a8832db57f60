# trap: none  (an eps of 1e-12 guards fp32 but underflows to 0 in fp16: an fp16-unsafe constant, not the missing guard)
import torch


def box_iou(a, b):
    # the eps underflows to 0 in fp16, so 0 / 0 is still NaN there
    lt = torch.maximum(a[:, None, :2], b[None, :, :2])
    rb = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    area_a = (a[:, 2:] - a[:, :2]).prod(-1)
    area_b = (b[:, 2:] - b[:, :2]).prod(-1)
    union = area_a[:, None] + area_b[None, :] - inter
    return inter / union.clamp(min=torch.tensor(1e-9, dtype=union.dtype))
