# kernel: aten::im2col
import torch


def patchify(images, P: int):
    return torch.ops.aten.im2col(images, [P, P], [1, 1], [0, 0], [P, P]).transpose(1, 2)
