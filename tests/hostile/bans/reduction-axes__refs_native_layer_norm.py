# kernel: aten::native_layer_norm
import torch._refs as R


def layer_norm(x, weight, bias, eps: float = 1e-5):
    return R.native_layer_norm(x, [x.shape[-1]], weight, bias, eps)[0]


def batch_stats(x):
    mean = x.mean((0, 1))
    return mean, ((x - mean) ** 2).mean((0, 1))

