# The largest k of the batch read once, one topk for every row, the filters in float32.
import torch


def filter_logits(logits, temperature, top_k, min_p):
    z32 = logits.float() / temperature.float()[:, None]
    k_max = max(int(top_k.max()), 1)
    top_vals = z32.topk(k_max, dim=-1).values  # (B, k_max), descending
    kth = top_vals.gather(1, (top_k - 1).clamp(min=0)[:, None])
    kth = torch.where(top_k[:, None] > 0, kth, torch.tensor(float("-inf"), device=z32.device))
    gap = z32 - z32.amax(dim=-1, keepdim=True)  # log of p_i / p_max
    keep = (z32 >= kth) & (gap >= torch.log(min_p.float())[:, None])
    z = logits / temperature[:, None]
    return torch.where(keep, z, torch.tensor(float("-inf"), dtype=z.dtype, device=z.device))
