# Two-stage top-k: the K best of each beam first (no other candidate of a beam can make the cut), then the
# K best of those K*K per sample.
import torch


def beam_step(logprobs, beam_scores, K, first):
    BK, V = logprobs.shape
    B = BK // K
    lp, tok = logprobs.topk(K, dim=-1)  # (B*K, K)
    cand = (lp + beam_scores[:, None]).view(B, K, K)
    tok = tok.view(B, K, K)
    if first:
        cand, tok = cand[:, :1], tok[:, :1]
    top, flat = cand.reshape(B, -1).topk(K, dim=-1)
    parents = flat // K  # rows of the (K, K) table are beams
    tokens = tok.reshape(B, -1).gather(1, flat)
    return tokens, parents, top
