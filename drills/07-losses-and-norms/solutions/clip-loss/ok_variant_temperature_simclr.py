# variant: scale=temperature
import torch
import torch.nn.functional as F


def clip_loss(img, txt, logit_scale):
    tau = logit_scale.float()
    z1 = F.normalize(img.float(), dim=1)
    z2 = F.normalize(txt.float(), dim=1)
    logits = torch.matmul(z1, z2.T) / tau
    labels = torch.arange(logits.size(0), device=logits.device)
    return 0.5 * (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels))
