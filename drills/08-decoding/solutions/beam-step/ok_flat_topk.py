import torch


def beam_step(logprobs, beam_scores, K, first):
    BK, V = logprobs.shape
    B = BK // K
    cand = (logprobs + beam_scores.unsqueeze(-1)).view(B, K, V)
    if first:
        cand = cand[:, 0]  # identical beams: beam 0 alone
    scores, idx = cand.reshape(B, -1).topk(K, dim=-1)
    return idx % V, idx // V, scores
