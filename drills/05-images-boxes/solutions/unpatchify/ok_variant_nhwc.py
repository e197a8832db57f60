# variant: layout=nhwc
# each grid axis next to its pixel axis, and the channel axis moved to the end
def unpatchify(tokens, C, H, W, P):
    B = tokens.shape[0]
    gh, gw = H // P, W // P
    x = tokens.reshape(B, gh, gw, C, P, P)
    x = x.permute(0, 1, 4, 2, 5, 3)  # (B, gh, P, gw, P, C)
    return x.reshape(B, H, W, C)
