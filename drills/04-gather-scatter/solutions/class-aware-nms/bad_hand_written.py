import torch


def class_aware_nms(boxes, scores, classes, iou_threshold):
    # correct maths, but it never calls torchvision.ops.nms: the drill asks for exactly one call
    b = boxes.double()
    order = scores.double().argsort(descending=True).tolist()
    keep = []
    for i in order:
        ok = True
        for j in keep:
            if classes[i] != classes[j]:
                continue
            w = (min(b[i, 2], b[j, 2]) - max(b[i, 0], b[j, 0])).clamp(min=0)
            h = (min(b[i, 3], b[j, 3]) - max(b[i, 1], b[j, 1])).clamp(min=0)
            inter = w * h
            union = (b[i, 2] - b[i, 0]) * (b[i, 3] - b[i, 1]) + (b[j, 2] - b[j, 0]) * (b[j, 3] - b[j, 1]) - inter
            if inter / union > iou_threshold:
                ok = False
                break
        if ok:
            keep.append(i)
    return torch.tensor(keep, dtype=torch.int64)
