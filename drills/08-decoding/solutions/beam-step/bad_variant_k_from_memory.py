# trap: k-candidates
# variant: cands=2k
# The contract's K written from memory where the variant keeps 2K.
import torch


def beam_step(logprobs, beam_scores, K, first):
    BK, V = logprobs.shape
    cand = (logprobs + beam_scores[:, None]).view(BK // K, K, V)
    if first:
        cand = cand[:, :1]
    scores, idx = cand.flatten(1).topk(K)
    return idx % V, idx // V, scores
