def unpatchify(tokens, C: int, H: int, W: int, P: int):
    B = tokens.shape[0]
    x = tokens.view(B, H // P, W // P, C, P, P)
    x = x.transpose(2, 3).transpose(1, 2)  # (B, C, gh, gw, P, P)
    x = x.transpose(3, 4)  # (B, C, gh, P, gw, P)
    return x.contiguous().view(B, C, H, W)
