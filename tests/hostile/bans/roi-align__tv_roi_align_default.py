# kernel: torchvision::roi_align
import torch
import torchvision  # noqa: F401 - registers torch.ops.torchvision


def roi_align(features, rois, output_size, spatial_scale, sampling_ratio):
    ph, pw = output_size
    return torch.ops.torchvision.roi_align.default(features, rois, spatial_scale, ph, pw, sampling_ratio, False)
