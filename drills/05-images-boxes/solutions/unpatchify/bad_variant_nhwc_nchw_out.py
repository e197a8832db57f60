# trap: none
# variant: layout=nhwc
# the contract's (B, C, H, W) from memory: the right pixels in the wrong layout
def unpatchify(tokens, C, H, W, P):
    B = tokens.shape[0]
    x = tokens.reshape(B, H // P, W // P, C, P, P).permute(0, 3, 1, 4, 2, 5)
    return x.reshape(B, C, H, W)
