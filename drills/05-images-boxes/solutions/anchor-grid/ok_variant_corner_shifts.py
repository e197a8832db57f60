# variant: offset=corner
# torchvision's AnchorGenerator: zero-centred base anchors shifted to each cell's top-left corner.
import torch


def make_anchors(H_f, W_f, stride, wh):
    dt = wh.dtype if wh.is_floating_point() else torch.float32
    w, h = wh.to(dt).unbind(-1)
    base = torch.stack([-w, -h, w, h], dim=1) / 2  # (A, 4) around (0, 0)
    shifts_x = torch.arange(0, W_f, dtype=dt, device=wh.device) * stride
    shifts_y = torch.arange(0, H_f, dtype=dt, device=wh.device) * stride
    shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x, indexing="ij")
    shift_x, shift_y = shift_x.reshape(-1), shift_y.reshape(-1)
    shifts = torch.stack((shift_x, shift_y, shift_x, shift_y), dim=1)  # (H_f * W_f, 4)
    return (shifts.view(-1, 1, 4) + base.view(1, -1, 4)).reshape(-1, 4)
