"""Progress reports: the numbers `drill report` shows, and the renderers that draw them.

- ``model``: the records, one per section, and ``Report`` holding them;
- ``build``: pure functions from store rows to a ``Report`` (``build_report``);
- ``words``: the phrases every renderer shares (``mmss``, ``plural``, ...);
- one module per renderer: ``text`` (the terminal, with rich), ``md``, ``html``
  (with ``svg`` charts), ``json_data`` (``to_dict``), and ``charts`` (the
  Unicode sparklines and bars text and md share);
- ``scheduler``: the scheduler section (FSRS fit and predictions).

The model, build, words and ``to_dict`` are re-exported here, so
``from trainer.reports import build_report`` keeps working; the renderers are
imported from their modules, so that reading a report number never loads rich.
"""
from __future__ import annotations

from trainer.reports.build import (
    UNTIMED_MODES,
    build_report,
    counted,
    day_counts,
    due_per_day,
    first_try,
    heat_level,
    heatmap,
    heatmap_range,
    is_clean_pass,
    is_timed,
    local_day,
    mastery,
    mistakes,
    mock_scores,
    next_steps,
    streak,
    totals,
    trends,
    untimed_passes,
    variant_results,
    weakest,
    weakest_variants,
    weakness_score,
)
from trainer.reports.json_data import (
    to_dict,
)
from trainer.reports.model import (
    DUE_DAYS,
    HEATMAP_WEEKS,
    MISTAKES,
    MOCK_POINTS,
    MOCK_SCORE_FORMULA,
    TREND_POINTS,
    WEAKEST,
    AxisInfo,
    DrillInfo,
    DrillTrend,
    DrillVariants,
    DueDay,
    FirstTry,
    HeatCell,
    Heatmap,
    Mistake,
    MockScore,
    Report,
    TopicMastery,
    Totals,
    TrendPoint,
    VariantResult,
    WeakDrill,
    drill_infos,
)
from trainer.reports.words import (
    best_text,
    duration,
    first_try_text,
    mmss,
    percent,
    plural,
    untimed_note,
)

__all__ = [
    "DUE_DAYS",
    "HEATMAP_WEEKS",
    "MISTAKES",
    "MOCK_POINTS",
    "MOCK_SCORE_FORMULA",
    "TREND_POINTS",
    "UNTIMED_MODES",
    "WEAKEST",
    "AxisInfo",
    "DrillInfo",
    "DrillTrend",
    "DrillVariants",
    "DueDay",
    "FirstTry",
    "HeatCell",
    "Heatmap",
    "Mistake",
    "MockScore",
    "Report",
    "TopicMastery",
    "Totals",
    "TrendPoint",
    "VariantResult",
    "WeakDrill",
    "best_text",
    "build_report",
    "counted",
    "day_counts",
    "drill_infos",
    "due_per_day",
    "duration",
    "first_try",
    "first_try_text",
    "heat_level",
    "heatmap",
    "heatmap_range",
    "is_clean_pass",
    "is_timed",
    "local_day",
    "mastery",
    "mistakes",
    "mmss",
    "mock_scores",
    "next_steps",
    "percent",
    "plural",
    "streak",
    "to_dict",
    "totals",
    "trends",
    "untimed_note",
    "untimed_passes",
    "variant_results",
    "weakest",
    "weakest_variants",
    "weakness_score",
]
