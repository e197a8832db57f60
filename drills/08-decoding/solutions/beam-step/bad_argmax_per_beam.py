# trap: best-per-beam
# Each beam keeps its favourite continuation, then the beams are reordered by score.
import torch


def beam_step(logprobs, beam_scores, K, first):
    BK, V = logprobs.shape
    B = BK // K
    cand = logprobs + beam_scores[:, None]
    if first:
        cand = cand.view(B, K, V)[:, :1].expand(B, K, V).reshape(BK, V)
    best, tok = cand.max(dim=-1)
    order = best.view(B, K).argsort(dim=-1, descending=True)
    return tok.view(B, K).gather(1, order), order, best.view(B, K).gather(1, order)
