"""Bans: banned calls caught in the sandbox child, by name and at the dispatcher, and the kernel families a drill refuses."""
