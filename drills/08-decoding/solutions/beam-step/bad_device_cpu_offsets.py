# device: the per-sample row offsets are made on the CPU (right on a CPU, an error on a GPU)
import torch


def beam_step(logprobs, beam_scores, K, first):
    BK, V = logprobs.shape
    B = BK // K
    lp = logprobs.view(B, K, V)
    if first:
        lp = lp[:, :1]
    cand = (lp + beam_scores.view(B, K, 1)[:, : lp.shape[1]]).reshape(B, -1)
    _, idx = cand.topk(K)
    tokens, parents = idx % V, idx // V
    rows = parents + torch.arange(B)[:, None] * K  # CPU arange
    return tokens, parents, beam_scores[rows] + logprobs[rows, tokens]
