import torch
import torch.nn.functional as F


def clip_loss(img, txt, logit_scale):
    img = F.normalize(img.float(), dim=-1)
    txt = F.normalize(txt.float(), dim=-1)
    logits = logit_scale.float().exp() * img @ txt.T
    eye = torch.eye(img.shape[0])            # one-hot targets made on the CPU
    logp_rows = logits.log_softmax(dim=1)
    logp_cols = logits.log_softmax(dim=0)
    return -((eye * logp_rows).sum() + (eye * logp_cols).sum()) / (2 * img.shape[0])
