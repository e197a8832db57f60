# device: beta made into a 1-element CPU tensor (right on a CPU, a device mix on a GPU)
import torch
import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask, beta):
    beta_t = torch.tensor([beta])
    cm, rm = chosen_mask.float(), rejected_mask.float()
    margin = ((policy_chosen - ref_chosen).float() * cm).sum(1) - ((policy_rejected - ref_rejected).float() * rm).sum(1)
    return -F.logsigmoid(beta_t * margin).mean()
