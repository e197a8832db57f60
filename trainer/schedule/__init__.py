"""Scheduling: the FSRS adapter, what is due, the optimizer, study plans and the streak."""
