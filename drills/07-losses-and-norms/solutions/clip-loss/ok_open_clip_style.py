import torch
import torch.nn.functional as F


def clip_loss(img, txt, logit_scale):
    image_features = F.normalize(img, dim=-1)
    text_features = F.normalize(txt, dim=-1)
    scale = logit_scale.exp()
    logits_per_image = scale * image_features @ text_features.T
    logits_per_text = scale * text_features @ image_features.T
    labels = torch.arange(img.shape[0], device=img.device, dtype=torch.long)
    return (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_text, labels)) / 2
