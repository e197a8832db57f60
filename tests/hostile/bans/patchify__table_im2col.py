# kernel: aten::im2col
import torch
from torch._decomp import decomposition_table


def patchify(images, P: int):
    return decomposition_table[torch.ops.aten.im2col.default](images, [P, P], [1, 1], [0, 0], [P, P]).transpose(1, 2)
