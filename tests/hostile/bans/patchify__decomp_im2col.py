# kernel: aten::im2col
import torch._decomp.decompositions as D


def patchify(images, P: int):
    return D.im2col(images, [P, P], [1, 1], [0, 0], [P, P]).transpose(1, 2)
