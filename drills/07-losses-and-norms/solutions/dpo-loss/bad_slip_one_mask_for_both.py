# trap: none
import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask, beta):
    m = chosen_mask.float()  # the chosen mask reused for the rejected response
    margin = ((policy_chosen - ref_chosen).float() * m).sum(1) - ((policy_rejected - ref_rejected).float() * m).sum(1)
    return -F.logsigmoid(beta * margin).mean()
