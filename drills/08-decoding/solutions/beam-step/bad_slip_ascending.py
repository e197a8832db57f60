# trap: none
# The right K candidates, returned in ascending order (sorted after topk, which sorts ascending by default).
import torch


def beam_step(logprobs, beam_scores, K, first):
    BK, V = logprobs.shape
    B = BK // K
    cand = (logprobs + beam_scores[:, None]).view(B, K, V)
    if first:
        cand = cand[:, :1]
    scores, idx = cand.flatten(1).topk(K)
    scores, order = scores.sort(dim=-1)
    idx = idx.gather(1, order)
    return idx % V, idx // V, scores
