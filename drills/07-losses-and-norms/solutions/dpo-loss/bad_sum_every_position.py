# trap: masks-ignored
import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask, beta):
    chosen_logratios = policy_chosen.float().sum(-1) - ref_chosen.float().sum(-1)
    rejected_logratios = policy_rejected.float().sum(-1) - ref_rejected.float().sum(-1)
    return -F.logsigmoid(beta * (chosen_logratios - rejected_logratios)).mean()
