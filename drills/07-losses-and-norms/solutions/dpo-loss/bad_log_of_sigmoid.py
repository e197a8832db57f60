# trap: log-sigmoid
import torch


def dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask, beta):
    cm, rm = chosen_mask.float(), rejected_mask.float()
    chosen_rewards = beta * ((policy_chosen.float() - ref_chosen.float()) * cm).sum(1)
    rejected_rewards = beta * ((policy_rejected.float() - ref_rejected.float()) * rm).sum(1)
    return -torch.log(torch.sigmoid(chosen_rewards - rejected_rewards)).mean()
