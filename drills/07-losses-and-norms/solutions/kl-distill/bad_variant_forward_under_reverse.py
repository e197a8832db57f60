# trap: forward-kl
# variant: direction=reverse
import torch.nn.functional as F


def distill_loss(student_logits, teacher_logits, temperature):
    log_q = F.log_softmax(student_logits.float() / temperature, dim=-1)
    p = F.softmax(teacher_logits.float() / temperature, dim=-1)
    return F.kl_div(log_q, p, reduction="batchmean") * temperature ** 2
