# variant: content=ppc
# channels-last first, then Tensor.unfold: the channel axis ends up last inside each patch.
def patchify(images, P):
    B, C, H, W = images.shape
    x = images.permute(0, 2, 3, 1)  # (B, H, W, C)
    x = x.unfold(1, P, P).unfold(2, P, P)  # (B, gh, gw, C, P, P)
    x = x.permute(0, 1, 2, 4, 5, 3)  # (B, gh, gw, P, P, C)
    return x.reshape(B, -1, P * P * C)
