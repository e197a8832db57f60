# trap: text-direction-only
import torch
import torch.nn.functional as F


def clip_loss(img, txt, logit_scale):
    img = F.normalize(img.float(), dim=-1)
    txt = F.normalize(txt.float(), dim=-1)
    logits_per_text = logit_scale.float().exp() * txt @ img.T
    return F.cross_entropy(logits_per_text, torch.arange(len(txt), device=txt.device))
