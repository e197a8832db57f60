"""The streak: consecutive practice days, one definition for `drill status` (the
store) and `drill report` (trainer.reports).

A plain function over calendar dates, with no imports beyond the standard
library, so both the report's pure functions and the store can use it.
"""
from __future__ import annotations

from datetime import date, timedelta
from typing import Iterable


def streak(days: Iterable[date], today: date) -> int:
    """Consecutive practice days ending today, or yesterday when today has none yet."""
    seen = set(days)
    day = today if today in seen else today - timedelta(days=1)
    count = 0
    while day in seen:
        count += 1
        day -= timedelta(days=1)
    return count
