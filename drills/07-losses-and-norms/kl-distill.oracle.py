"""The oracle for kl-distill: torch.distributions' own KL between two Categoricals, on inputs
upcast to float64.

Kept apart from the reference so that it is an independent check; every public function here is
an oracle the spec can name (drills/README.md)."""
from __future__ import annotations

import torch
from torch.distributions import Categorical, kl_divergence


def distill_loss_distributions(student_logits: torch.Tensor, teacher_logits: torch.Tensor,
                               temperature: float, *, direction: str = "forward") -> torch.Tensor:
    """tau^2 * KL(teacher || student) (forward) or KL(student || teacher) (reverse), each row a
    Categorical(logits=x / tau), averaged over the batch."""
    teacher = Categorical(logits=teacher_logits / temperature)
    student = Categorical(logits=student_logits / temperature)
    kl = kl_divergence(teacher, student) if direction == "forward" else kl_divergence(student, teacher)
    return kl.mean() * temperature ** 2
