# trap: exp-of-temperature
# variant: scale=temperature
import torch
import torch.nn.functional as F


def clip_loss(img, txt, logit_scale):
    image_features = F.normalize(img.float(), dim=-1)
    text_features = F.normalize(txt.float(), dim=-1)
    logits = logit_scale.float().exp() * image_features @ text_features.T
    labels = torch.arange(img.shape[0], device=img.device)
    return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
