# device: mixes CPU tensors with the inputs (correct on a CPU, an error on a GPU)
import torch
def one_hot(labels, K):
    return torch.zeros(labels.numel(), K).index_put_((torch.arange(labels.numel()), labels), torch.tensor(1.0))
def class_counts(labels, K):
    return torch.histc(labels.float(), bins=K, min=0, max=K - 1).long()
