# trap: token-mean
# The average_log_prob=True path of older TRL get_batch_logps, used for DPO.
import torch.nn.functional as F


def get_batch_logps(per_token_logps, loss_mask, average_log_prob=True):
    loss_mask = loss_mask.float()
    if average_log_prob:
        return (per_token_logps.float() * loss_mask).sum(-1) / loss_mask.sum(-1)
    return (per_token_logps.float() * loss_mask).sum(-1)


def dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask, beta):
    pc = get_batch_logps(policy_chosen, chosen_mask)
    pr = get_batch_logps(policy_rejected, rejected_mask)
    rc = get_batch_logps(ref_chosen, chosen_mask)
    rr = get_batch_logps(ref_rejected, rejected_mask)
    return -F.logsigmoid(beta * ((pc - rc) - (pr - rr))).mean()
