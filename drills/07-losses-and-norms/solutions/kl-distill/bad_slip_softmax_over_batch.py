# trap: none
# both distributions normalised over dim 0 (the batch) instead of the classes
import torch


def distill_loss(student_logits, teacher_logits, temperature):
    log_q = torch.log_softmax(student_logits.float() / temperature, dim=0)
    log_p = torch.log_softmax(teacher_logits.float() / temperature, dim=0)
    kl = (log_p.exp() * (log_p - log_q)).sum(-1)
    return kl.mean() * temperature ** 2
