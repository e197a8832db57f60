# trap: swapped
import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask, beta):
    cm, rm = chosen_mask.float(), rejected_mask.float()
    pi_logratios = (policy_rejected.float() * rm).sum(-1) - (policy_chosen.float() * cm).sum(-1)
    ref_logratios = (ref_rejected.float() * rm).sum(-1) - (ref_chosen.float() * cm).sum(-1)
    return -F.logsigmoid(beta * (pi_logratios - ref_logratios)).mean()
