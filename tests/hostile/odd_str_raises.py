import torch


class MyError(Exception):
    def __str__(self):
        return self.missing_attribute  # a realistic bug: __str__ itself raises AttributeError


def add_one(x):
    if x.dtype == torch.float16:
        raise MyError("fp16 is not handled")
    return x + 1
