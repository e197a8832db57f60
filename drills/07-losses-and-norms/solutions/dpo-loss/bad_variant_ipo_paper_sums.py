# trap: ipo-summed
# variant: loss_type=ipo
def dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask, beta):
    cm, rm = chosen_mask.float(), rejected_mask.float()
    h = ((policy_chosen.float() - ref_chosen.float()) * cm).sum(1) - ((policy_rejected.float() - ref_rejected.float()) * rm).sum(1)
    return ((h - 1 / (2 * beta)) ** 2).mean()
