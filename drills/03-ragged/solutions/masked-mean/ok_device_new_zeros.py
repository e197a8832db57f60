import torch


def masked_mean(x, mask):
    m = (mask != 0).to(torch.float32)  # (B, T) on mask's device
    total = torch.einsum("btd,bt->bd", x.float(), m)
    count = m.sum(1, keepdim=True)
    zero = total.new_zeros(())  # made on the inputs' device
    out = torch.where(count > 0, total / count.clamp(min=1), zero)
    return (out * 1.0).to(x.dtype)  # a Python scalar mixes anywhere
