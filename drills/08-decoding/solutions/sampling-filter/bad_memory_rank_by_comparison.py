# Each entry's rank counted by comparing it with every other entry of its row: right, through a (B, V, V) table.
import torch


def filter_logits(logits, temperature, top_k, min_p):
    z = logits / temperature.unsqueeze(1)
    n_above = (z.unsqueeze(2) < z.unsqueeze(1)).sum(-1)  # entries strictly larger: ties share a rank
    keep = (n_above < top_k.unsqueeze(1)) | (top_k == 0).unsqueeze(1)
    logp = torch.log_softmax(z.float(), dim=-1)
    keep &= logp - logp.amax(-1, keepdim=True) >= torch.log(min_p.float()).unsqueeze(1)
    return torch.where(keep, z, torch.full_like(z, float("-inf")))
