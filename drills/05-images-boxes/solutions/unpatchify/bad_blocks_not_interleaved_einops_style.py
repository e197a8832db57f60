# trap: blocks-not-interleaved  (grid and pixel axes left apart: (B, C, gh, gw, P, P) flattened into rows)
def unpatchify(tokens, C, H, W, P):
    B = tokens.shape[0]
    gh, gw = H // P, W // P
    x = tokens.view(B, gh, gw, C, P, P)
    x = x.permute(0, 3, 1, 2, 4, 5).contiguous()
    return x.view(B, C, H, W)
