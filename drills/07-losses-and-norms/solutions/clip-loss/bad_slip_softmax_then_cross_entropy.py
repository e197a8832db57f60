# trap: none
# probabilities passed to F.cross_entropy, which applies its own log_softmax on top
import torch
import torch.nn.functional as F


def clip_loss(img, txt, logit_scale):
    img = F.normalize(img.float(), dim=-1)
    txt = F.normalize(txt.float(), dim=-1)
    logits = logit_scale.float().exp() * img @ txt.T
    labels = torch.arange(img.shape[0], device=img.device)
    p_i2t = logits.softmax(dim=1)
    p_t2i = logits.T.softmax(dim=1)
    return (F.cross_entropy(p_i2t, labels) + F.cross_entropy(p_t2i, labels)) / 2
