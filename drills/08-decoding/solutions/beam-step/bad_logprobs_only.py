# trap: no-beam-score
# The running scores never enter: the ranking and the returned scores are this step's log-probs.
import torch


def beam_step(logprobs, beam_scores, K, first):
    BK, V = logprobs.shape
    B = BK // K
    lp = logprobs.view(B, K, V)
    if first:
        lp = lp[:, :1]
    scores, flat = lp.reshape(B, -1).topk(K)
    return flat % V, flat // V, scores
