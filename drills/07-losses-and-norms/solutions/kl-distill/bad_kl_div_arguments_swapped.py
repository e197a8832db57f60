# trap: reverse-kl
import torch.nn.functional as F


def distill_loss(student_logits, teacher_logits, temperature):
    teacher_log_probs = F.log_softmax(teacher_logits.float() / temperature, dim=-1)
    student_probs = F.softmax(student_logits.float() / temperature, dim=-1)
    return F.kl_div(teacher_log_probs, student_probs, reduction="batchmean") * temperature ** 2
