# trap: square-grid
import math


def patchify(images, P):
    B, C, H, W = images.shape
    G = H // P
    x = images.reshape(B, C, G, P, G, P).permute(0, 2, 4, 1, 3, 5)
    return x.reshape(B, G * G, C * P * P)
