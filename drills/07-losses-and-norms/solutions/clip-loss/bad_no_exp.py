# trap: no-exp
import torch
import torch.nn.functional as F


def clip_loss(img, txt, logit_scale):
    img = F.normalize(img, dim=-1).float()
    txt = F.normalize(txt, dim=-1).float()
    logits = logit_scale.float() * img @ txt.T
    labels = torch.arange(img.shape[0], device=img.device)
    return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
