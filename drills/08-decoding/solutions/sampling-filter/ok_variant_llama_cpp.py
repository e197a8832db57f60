# variant: order=temp-last
# llama.cpp's default chain: top-k and min-p on the raw logits, the temperature applied to the survivors last.
import torch


def filter_logits(logits, temperature, top_k, min_p):
    V = logits.shape[-1]
    desc = logits.sort(dim=-1, descending=True).values
    kth = desc.gather(-1, (top_k - 1).clamp(0, V - 1)[:, None])
    keep = (logits >= kth) | (top_k[:, None] == 0)
    floor = logits.float().amax(-1, keepdim=True) + min_p.float().log()[:, None]
    keep = keep & (logits.float() >= floor)
    return (logits / temperature[:, None]).masked_fill(~keep, -torch.inf)
