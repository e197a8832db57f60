# trap: cell-corner  (anchors centred on each cell's top-left corner: no + 0.5; built by broadcasting)
import torch


def make_anchors(H_f, W_f, stride, wh):
    A = wh.shape[0]
    cy = (torch.arange(H_f, dtype=wh.dtype, device=wh.device) * stride)[:, None, None]
    cx = (torch.arange(W_f, dtype=wh.dtype, device=wh.device) * stride)[None, :, None]
    w, h = wh[:, 0], wh[:, 1]
    x1 = (cx - w / 2).expand(H_f, W_f, A)
    y1 = (cy - h / 2).expand(H_f, W_f, A)
    x2 = (cx + w / 2).expand(H_f, W_f, A)
    y2 = (cy + h / 2).expand(H_f, W_f, A)
    return torch.stack([x1, y1, x2, y2], dim=-1).reshape(-1, 4)
