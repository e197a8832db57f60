"""Judging one call: comparison with the oracle, invariants, trap attribution, quick-fire answers."""
