import torch
import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask, beta):
    c, r = chosen_mask.bool(), rejected_mask.bool()
    chosen = torch.where(c, policy_chosen.float() - ref_chosen.float(), 0.0).sum(1)
    rejected = torch.where(r, policy_rejected.float() - ref_rejected.float(), 0.0).sum(1)
    # -logsigmoid(x) = softplus(-x)
    return F.softplus(-beta * (chosen - rejected)).mean().to(policy_chosen.dtype)
