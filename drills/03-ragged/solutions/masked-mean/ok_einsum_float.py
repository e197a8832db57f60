import torch


def masked_mean(x, mask):
    m = (mask == 1).float()  # (B, T)
    total = torch.einsum("btd,bt->bd", x.float(), m)
    count = m.sum(1, keepdim=True)
    out = torch.where(count > 0, total / count.clamp(min=1e-6), torch.zeros_like(total))
    return out.to(x.dtype)
