import torch.nn.functional as F


def distill_loss(student_logits, teacher_logits, temperature):
    T = temperature
    log_q = F.log_softmax(student_logits.float() / T, dim=-1)
    p = F.softmax(teacher_logits.float() / T, dim=-1)
    return F.kl_div(log_q, p, reduction="batchmean") * T * T
