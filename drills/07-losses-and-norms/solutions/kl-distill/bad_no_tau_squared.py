# trap: no-tau-squared
import torch.nn.functional as F


def distill_loss(student_logits, teacher_logits, temperature):
    soft_targets = F.softmax(teacher_logits.float() / temperature, dim=-1)
    soft_prob = F.log_softmax(student_logits.float() / temperature, dim=-1)
    return F.kl_div(soft_prob, soft_targets, reduction="batchmean")
