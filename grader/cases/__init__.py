"""Cases: deterministic inputs and oracle outputs from a seed, the built-in generators, and the cases' fingerprint."""
