# variant: loss_type=ipo
def dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask, beta):
    # TRL's loss_type="ipo": average log-probs (sum / completion length), then (logits - 1/(2 beta))^2
    cm, rm = chosen_mask.float(), rejected_mask.float()
    pc = (policy_chosen.float() * cm).sum(-1) / cm.sum(-1)
    pr = (policy_rejected.float() * rm).sum(-1) / rm.sum(-1)
    rc = (ref_chosen.float() * cm).sum(-1) / cm.sum(-1)
    rr = (ref_rejected.float() * rm).sum(-1) / rm.sum(-1)
    logits = (pc - pr) - (rc - rr)
    losses = (logits - 1 / (2 * beta)) ** 2
    return losses.mean()
