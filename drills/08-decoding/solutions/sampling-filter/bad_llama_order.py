# trap: min-p-unscaled
# The filters read the raw logits, llama.cpp's order; the temperature only scales what is returned.
import torch


def filter_logits(logits, temperature, top_k, min_p):
    V = logits.shape[1]
    kth = logits.topk(V, dim=-1).values.gather(1, (top_k - 1).clamp(min=0)[:, None])
    keep = (logits >= kth) | (top_k == 0)[:, None]
    p = torch.softmax(logits.float(), dim=-1)
    keep = keep & (p >= min_p[:, None] * p.max(dim=-1, keepdim=True).values)
    return torch.where(keep, logits / temperature[:, None], float("-inf"))
