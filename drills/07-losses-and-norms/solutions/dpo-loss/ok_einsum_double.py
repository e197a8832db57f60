import torch


def dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask, beta):
    cm, rm = chosen_mask.double(), rejected_mask.double()
    chosen = torch.einsum("bt,bt->b", policy_chosen.double() - ref_chosen.double(), cm)
    rejected = torch.einsum("bt,bt->b", policy_rejected.double() - ref_rejected.double(), rm)
    x = beta * (chosen - rejected)
    # log(1 + exp(-x)), stable both ways
    loss = torch.clamp(-x, min=0) + torch.log1p(torch.exp(-x.abs()))
    return loss.mean().float()
