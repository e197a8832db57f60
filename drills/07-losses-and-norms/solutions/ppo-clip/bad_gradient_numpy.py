# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def ppo_clip_loss(logp, old_logp, adv, mask, eps_low=0.2, eps_high=0.2):
    keep = mask.double().numpy() != 0
    d = (logp.double().numpy() - old_logp.double().numpy())[keep]
    a = adv.double().numpy()[keep]
    r = np.exp(d)
    loss = np.maximum(-a * r, -a * np.clip(r, 1 - eps_low, 1 + eps_high))
    return torch.tensor(loss.mean(), dtype=torch.float32)
