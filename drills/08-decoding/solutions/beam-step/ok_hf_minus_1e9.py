# Hugging Face's way of starting a search: beams 1 .. K-1 get a hopeless score, so only beam 0 can win.
import torch


def beam_step(logprobs, beam_scores, K, first):
    BK, V = logprobs.shape
    B = BK // K
    scores = beam_scores.clone().view(B, K)
    if first:
        scores[:, 1:] = -1e9 if scores.dtype != torch.float16 else -6e4
    cand = (scores.view(BK, 1) + logprobs).view(B, K * V)
    top, flat = torch.topk(cand, K, dim=1, largest=True, sorted=True)
    parents = torch.div(flat, V, rounding_mode="floor")
    tokens = flat - parents * V
    return tokens, parents, top
