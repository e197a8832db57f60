# trap: dpo-sigmoid
# variant: loss_type=ipo
import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask, beta):
    cm, rm = chosen_mask.float(), rejected_mask.float()
    margin = ((policy_chosen - ref_chosen).float() * cm).sum(-1) - ((policy_rejected - ref_rejected).float() * rm).sum(-1)
    return -F.logsigmoid(beta * margin).mean()
