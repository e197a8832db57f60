"""The oracle for token-logprobs: -F.cross_entropy per position.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def token_logprobs_ce(logits: torch.Tensor, ids: torch.Tensor, *, shift: str = "aligned",
                      temperature: float = 1.0) -> torch.Tensor:
    """(B, T) log-probabilities of the realised tokens: -cross_entropy per position. With shift
    "causal", logits[:, t] scores ids[:, t + 1], as Hugging Face's causal LM loss shifts them: (B, T - 1).
    The logits are divided by the temperature first."""
    if shift == "causal":
        logits, ids = logits[:, :-1], ids[:, 1:]
    logits = logits / temperature
    B, T, V = logits.shape
    return -F.cross_entropy(logits.reshape(B * T, V), ids.reshape(B * T), reduction="none").reshape(B, T)
