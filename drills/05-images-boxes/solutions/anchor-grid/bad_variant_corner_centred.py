# trap: cell-centre
# variant: offset=corner
import torch


def make_anchors(H_f, W_f, stride, wh):
    dt = wh.dtype if wh.is_floating_point() else torch.float32
    anchors = []
    for i in range(H_f):
        for j in range(W_f):
            cx, cy = (j + 0.5) * stride, (i + 0.5) * stride
            for w, h in wh.tolist():
                anchors.append([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])
    return torch.tensor(anchors, dtype=dt, device=wh.device)
