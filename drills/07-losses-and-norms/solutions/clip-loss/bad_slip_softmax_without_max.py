# trap: none
# a hand-written softmax without subtracting the max: exp(100 * cos) overflows at scale 100
import torch


def clip_loss(img, txt, logit_scale):
    a = img.float() / img.float().norm(dim=1, keepdim=True)
    b = txt.float() / txt.float().norm(dim=1, keepdim=True)
    logits = logit_scale.float().exp() * a @ b.T
    e = torch.exp(logits)
    p_rows = e.diagonal() / e.sum(dim=1)
    p_cols = e.diagonal() / e.sum(dim=0)
    return -(torch.log(p_rows).mean() + torch.log(p_cols).mean()) / 2
