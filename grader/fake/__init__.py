"""Fake tensors and devices: the fake-CUDA device case, memory at scale, and a real GPU when there is one."""
