# trap: none
# F.normalize over dim 0 (each feature across the batch) instead of each row
import torch
import torch.nn.functional as F


def clip_loss(img, txt, logit_scale):
    img = F.normalize(img.float(), dim=0)
    txt = F.normalize(txt.float(), dim=0)
    logits = logit_scale.float().exp() * img @ txt.T
    labels = torch.arange(img.shape[0], device=img.device)
    return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
