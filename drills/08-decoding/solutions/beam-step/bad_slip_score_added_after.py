# trap: none
# Ranks by the log-prob alone but reports the full score of what it picked: the wrong beams, consistent scores.
import torch


def beam_step(logprobs, beam_scores, K, first):
    BK, V = logprobs.shape
    B = BK // K
    lp = logprobs.view(B, K, V)
    if first:
        lp = lp[:, :1]
    _, flat = lp.reshape(B, -1).topk(K)
    tokens, parents = flat % V, flat // V
    rows = parents + torch.arange(B, device=flat.device)[:, None] * K
    return tokens, parents, beam_scores[rows] + logprobs[rows, tokens]
