# trap: none
# Returns the parent as the row of logprobs (b*K + k) instead of the beam within the sample.
import torch


def beam_step(logprobs, beam_scores, K, first):
    BK, V = logprobs.shape
    B = BK // K
    cand = (logprobs + beam_scores[:, None]).view(B, K, V)
    if first:
        cand = cand[:, :1]
    scores, idx = cand.flatten(1).topk(K)
    rows = idx // V + torch.arange(B, device=idx.device)[:, None] * K
    return idx % V, rows, scores
