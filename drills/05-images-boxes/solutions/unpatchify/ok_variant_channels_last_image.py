# variant: content=ppc
# (P, P, C) tokens assemble into a channels-last image first; one permute makes it (B, C, H, W).
def unpatchify(tokens, C, H, W, P):
    B = tokens.shape[0]
    gh, gw = H // P, W // P
    x = tokens.reshape(B, gh, gw, P, P, C).transpose(2, 3)  # (B, gh, P, gw, P, C)
    x = x.reshape(B, H, W, C)
    return x.permute(0, 3, 1, 2).contiguous()
