# variant: direction=reverse
import torch.nn.functional as F


def distill_loss(student_logits, teacher_logits, temperature):
    # TRL's generalized_jsd_loss with beta = 1: KL(student || teacher), here with tau^2
    student_log_probs = F.log_softmax(student_logits.float() / temperature, dim=-1)
    teacher_log_probs = F.log_softmax(teacher_logits.float() / temperature, dim=-1)
    jsd = F.kl_div(teacher_log_probs, student_log_probs, reduction="none", log_target=True)
    return jsd.sum(-1).mean() * temperature ** 2
