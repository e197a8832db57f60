# trap: no-normalisation
import torch
import torch.nn.functional as F


def clip_loss(img, txt, logit_scale):
    logits = logit_scale.exp() * img.float() @ txt.float().t()
    labels = torch.arange(len(img), device=img.device)
    return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2
