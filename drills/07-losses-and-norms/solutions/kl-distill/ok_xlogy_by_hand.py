import torch


def distill_loss(student_logits, teacher_logits, temperature):
    s = student_logits.float() / temperature
    t = teacher_logits.float() / temperature
    p = torch.softmax(t, dim=-1)
    log_q = s - torch.logsumexp(s, dim=-1, keepdim=True)
    kl = (torch.xlogy(p, p) - p * log_q).sum(dim=-1)
    return kl.mean() * temperature ** 2
