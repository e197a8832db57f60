# variant: layout=nhwc
# channels-last images: split H and W in place, then bring C in front of the two pixel axes
def patchify(images, P):
    B, H, W, C = images.shape
    gh, gw = H // P, W // P
    x = images.reshape(B, gh, P, gw, P, C)
    x = x.permute(0, 1, 3, 5, 2, 4)  # (B, gh, gw, C, P, P)
    return x.reshape(B, gh * gw, C * P * P)
