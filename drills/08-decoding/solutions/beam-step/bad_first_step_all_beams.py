# trap: first-ignored
import torch


def beam_step(logprobs, beam_scores, K, first):
    BK, V = logprobs.shape
    cand = (beam_scores[:, None] + logprobs).reshape(BK // K, K * V)
    scores, idx = cand.topk(K, dim=-1)
    return idx % V, idx // V, scores
