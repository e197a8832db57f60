"""The oracle for beam-step: every candidate of a sample listed and sorted, in float64.

Kept apart from the reference so that it is an independent check; every public function here is an
oracle the spec can name (drills/README.md). Arguments come with floating tensors upcast to float64
(grader/cases/prepare.py)."""
from __future__ import annotations

import torch


def beam_step_sorted(logprobs: torch.Tensor, beam_scores: torch.Tensor, K: int, first: bool, *,
                     cands: str = "k") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per sample b: the candidates (beam_scores[b*K + k] + logprobs[b*K + k, v], k, v) of beams k (beam 0
    only when `first`), sorted by descending score; the best K (or 2K) give (tokens, parents, scores)."""
    lp, sc = logprobs.tolist(), beam_scores.tolist()
    n = K if cands == "k" else 2 * K
    tokens, parents, scores = [], [], []
    for b in range(len(sc) // K):
        beams = [0] if first else range(K)
        cand = [(sc[b * K + k] + lp[b * K + k][v], k, v) for k in beams for v in range(len(lp[0]))]
        cand.sort(key=lambda c: -c[0])
        best = cand[:n]
        tokens.append([v for _, _, v in best])
        parents.append([k for _, k, _ in best])
        scores.append([s for s, _, _ in best])
    return (torch.tensor(tokens, dtype=torch.int64), torch.tensor(parents, dtype=torch.int64),
            torch.tensor(scores, dtype=torch.float64))
