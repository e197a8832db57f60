# kernel: aten::broadcast_tensors
import torch


def broadcast_shape(a: tuple, b: tuple) -> tuple:
    try:
        out = torch.ops.aten.broadcast_tensors([torch.empty(a, device="meta"), torch.empty(b, device="meta")])
    except RuntimeError as exc:
        raise ValueError(str(exc)) from None
    return tuple(out[0].shape)
