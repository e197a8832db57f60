# trap: mean-over-classes
import torch.nn.functional as F


def distill_loss(student_logits, teacher_logits, temperature):
    T = temperature
    return F.kl_div(
        F.log_softmax(student_logits.float() / T, dim=1),
        F.softmax(teacher_logits.float() / T, dim=1),
        reduction="mean",
    ) * (T * T)
