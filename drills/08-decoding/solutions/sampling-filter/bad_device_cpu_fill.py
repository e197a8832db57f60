# device: the -inf fill is a full (B, V) tensor made on the CPU (right on a CPU, an error on a GPU)
import torch


def filter_logits(logits, temperature, top_k, min_p):
    z = logits / temperature[:, None]
    B, V = z.shape
    kth = z.sort(dim=-1, descending=True).values.gather(-1, (top_k.clamp(1, V) - 1)[:, None])
    keep = (z >= kth) | (top_k == 0)[:, None]
    keep &= z.float() - z.float().amax(-1, keepdim=True) >= min_p.float().log()[:, None]
    neg_inf = torch.full((B, V), float("-inf"), dtype=z.dtype)
    return torch.where(keep, z, neg_inf)
