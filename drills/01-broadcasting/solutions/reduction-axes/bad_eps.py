# trap: ln-eps-outside-sqrt
def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(-1, keepdim=True)
    std = ((x - mu) ** 2).mean(-1, keepdim=True).sqrt()
    return (x - mu) / (std + eps) * weight + bias


def batch_stats(x):
    m = x.mean((0, 1))
    return m, ((x - m) ** 2).mean((0, 1))
