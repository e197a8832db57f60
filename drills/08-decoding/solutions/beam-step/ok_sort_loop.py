# One sample at a time, a full descending sort of its candidates, in float64, cast back at the end.
import torch


def beam_step(logprobs, beam_scores, K, first):
    BK, V = logprobs.shape
    toks, pars, scs = [], [], []
    for b in range(BK // K):
        rows = slice(b * K, b * K + 1) if first else slice(b * K, (b + 1) * K)
        cand = (beam_scores[rows].double()[:, None] + logprobs[rows].double()).flatten()
        order = torch.argsort(cand, descending=True)[:K]
        toks.append(order % V)
        pars.append(order // V)
        scs.append(cand[order])
    return torch.stack(toks), torch.stack(pars), torch.stack(scs).to(logprobs.dtype)
