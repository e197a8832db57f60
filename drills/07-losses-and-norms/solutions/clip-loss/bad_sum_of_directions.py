# trap: sum-of-directions
import torch


def clip_loss(img, txt, logit_scale):
    a = img.float() / img.float().norm(dim=1, keepdim=True)
    b = txt.float() / txt.float().norm(dim=1, keepdim=True)
    logits = logit_scale.float().exp() * a @ b.T
    loss_i = -torch.log_softmax(logits, dim=1).diag().mean()
    loss_t = -torch.log_softmax(logits, dim=0).diag().mean()
    return loss_i + loss_t
