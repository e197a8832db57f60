# trap: log-of-softmax
import torch


def distill_loss(student_logits, teacher_logits, temperature):
    p = torch.softmax(teacher_logits.float() / temperature, dim=-1)
    q = torch.softmax(student_logits.float() / temperature, dim=-1)
    kl = (p * torch.log(p / q)).sum(dim=-1)
    return temperature ** 2 * kl.mean()
