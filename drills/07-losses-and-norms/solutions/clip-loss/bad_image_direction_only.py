# trap: image-direction-only
import torch
import torch.nn.functional as F


def clip_loss(img, txt, logit_scale):
    img = F.normalize(img.float(), dim=-1)
    txt = F.normalize(txt.float(), dim=-1)
    logits = img @ txt.T * logit_scale.float().exp()
    targets = torch.arange(img.size(0), device=img.device)
    return F.cross_entropy(logits, targets)
