"""Practice flows: warm-up and mock, sittings, the timed queue, watch, and the attempt builder."""
