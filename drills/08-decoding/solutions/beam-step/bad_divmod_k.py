# trap: k-for-v
import torch


def beam_step(logprobs, beam_scores, K, first):
    BK, V = logprobs.shape
    B = BK // K
    cand = (logprobs + beam_scores[:, None]).view(B, K, V)
    if first:
        cand = cand[:, :1]
    scores, idx = cand.flatten(1).topk(K)
    parents = torch.div(idx, K, rounding_mode="floor")
    tokens = idx % K
    return tokens, parents, scores
