# trap: temp-first
# variant: order=temp-last
# Hugging Face's order written from memory where the variant asks for llama.cpp's.
import torch


def filter_logits(logits, temperature, top_k, min_p):
    z = logits / temperature[:, None]
    V = z.shape[-1]
    kth = z.sort(dim=-1, descending=True).values.gather(-1, (top_k.clamp(1, V) - 1)[:, None])
    keep = (z >= kth) | (top_k == 0)[:, None]
    keep &= z.float() - z.float().amax(-1, keepdim=True) >= min_p.float().log()[:, None]
    return z.masked_fill(~keep, float("-inf"))
