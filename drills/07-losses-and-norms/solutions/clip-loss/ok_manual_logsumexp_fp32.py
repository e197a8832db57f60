import torch


def clip_loss(img, txt, logit_scale):
    a = img.float()
    b = txt.float()
    a = a / a.pow(2).sum(1, keepdim=True).sqrt()
    b = b / b.pow(2).sum(1, keepdim=True).sqrt()
    logits = torch.exp(logit_scale.float()) * (a @ b.t())
    diag = logits.diagonal()
    row_lse = torch.logsumexp(logits, dim=1)
    col_lse = torch.logsumexp(logits, dim=0)
    return ((row_lse - diag).mean() + (col_lse - diag).mean()) * 0.5
