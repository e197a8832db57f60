"""The oracle for clip-loss: F.normalize, then torch's F.cross_entropy in both directions, on
inputs upcast to float64.

Kept apart from the reference so that it is an independent check; every public function here is
an oracle the spec can name (drills/README.md)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def clip_loss_ce(img: torch.Tensor, txt: torch.Tensor, logit_scale: torch.Tensor, *,
                 scale: str = "log") -> torch.Tensor:
    """open_clip's ClipLoss on one device: (CE(logits, labels) + CE(logits.T, labels)) / 2 with
    logits = exp(logit_scale) * cos (scale=log) or cos / tau (scale=temperature)."""
    cos = F.normalize(img, dim=-1) @ F.normalize(txt, dim=-1).T
    logits = cos * logit_scale.exp() if scale == "log" else cos / logit_scale
    labels = torch.arange(img.shape[0], device=img.device)
    return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
