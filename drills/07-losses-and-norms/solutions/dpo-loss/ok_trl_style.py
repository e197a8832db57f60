import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask, beta):
    # TRL-style: sequence log-probs as masked sums, then logits = pi_logratios - ref_logratios
    cm, rm = chosen_mask.float(), rejected_mask.float()
    policy_chosen_logps = (policy_chosen.float() * cm).sum(-1)
    policy_rejected_logps = (policy_rejected.float() * rm).sum(-1)
    reference_chosen_logps = (ref_chosen.float() * cm).sum(-1)
    reference_rejected_logps = (ref_rejected.float() * rm).sum(-1)
    pi_logratios = policy_chosen_logps - policy_rejected_logps
    ref_logratios = reference_chosen_logps - reference_rejected_logps
    logits = pi_logratios - ref_logratios
    losses = -F.logsigmoid(beta * logits)
    return losses.mean()
