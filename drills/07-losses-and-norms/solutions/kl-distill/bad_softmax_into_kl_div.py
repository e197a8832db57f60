# trap: probs-as-input
import torch.nn.functional as F


def distill_loss(student_logits, teacher_logits, temperature):
    student_probs = F.softmax(student_logits.float() / temperature, dim=-1)
    teacher_probs = F.softmax(teacher_logits.float() / temperature, dim=-1)
    return F.kl_div(student_probs, teacher_probs, reduction="batchmean") * temperature ** 2
