# trap: no-exp
# variant: scale=temperature
import torch
import torch.nn.functional as F


def clip_loss(img, txt, logit_scale):
    z_img = F.normalize(img.float(), dim=1)
    z_txt = F.normalize(txt.float(), dim=1)
    logits = z_img @ z_txt.T * logit_scale.float()
    labels = torch.arange(z_img.shape[0], device=z_img.device)
    return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
