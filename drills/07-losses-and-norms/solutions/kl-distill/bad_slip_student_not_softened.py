# trap: none
# the temperature applied to the teacher only; the student's log-probabilities are taken at tau = 1
import torch.nn.functional as F


def distill_loss(student_logits, teacher_logits, temperature):
    p = F.softmax(teacher_logits.float() / temperature, dim=-1)
    log_q = F.log_softmax(student_logits.float(), dim=-1)
    return F.kl_div(log_q, p, reduction="batchmean") * temperature ** 2
