import torch
import torch.nn.functional as F


def clip_loss(img, txt, logit_scale):
    # every pair's cosine by broadcasting: builds a (B, B, d) product
    cos = F.cosine_similarity(img.float()[:, None, :], txt.float()[None, :, :], dim=-1)
    logits = logit_scale.float().exp() * cos
    labels = torch.arange(img.shape[0], device=img.device)
    return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
