import torch


def distill_loss(student_logits, teacher_logits, temperature):
    log_q = torch.log_softmax(student_logits / temperature, dim=-1)
    log_p = torch.log_softmax(teacher_logits / temperature, dim=-1)
    kl = torch.nn.functional.kl_div(log_q.float(), log_p.float(), reduction="sum", log_target=True)
    return kl / student_logits.shape[0] * temperature ** 2
