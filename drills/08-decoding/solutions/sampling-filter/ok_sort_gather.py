import torch


def filter_logits(logits, temperature, top_k, min_p):
    z = logits / temperature.unsqueeze(-1)
    B, V = z.shape
    sorted_z, _ = torch.sort(z, dim=-1, descending=True)
    k = top_k.clamp(min=1, max=V) - 1
    kth = sorted_z.gather(1, k.unsqueeze(1))
    keep = (z >= kth) | (top_k == 0).unsqueeze(1)
    probs = torch.softmax(z.float(), dim=-1)
    top = probs.max(dim=-1, keepdim=True).values
    keep &= probs >= min_p.float().unsqueeze(1) * top
    return z.masked_fill(~keep, float("-inf"))
