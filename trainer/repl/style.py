"""Colours for the REPL and its verdicts (NO_COLOR is honoured by prompt_toolkit itself)."""
from __future__ import annotations

from prompt_toolkit.styles import BaseStyle, Style, merge_styles
from prompt_toolkit.styles.pygments import style_from_pygments_cls
from pygments.styles import get_style_by_name

RULES = {
    "title": "bg:#005f87 #ffffff",
    "variant": "bg:#875f00 #ffffff",
    "header": "",
    "prompt": "#d7d7af",
    "ledger": "#87afd7",
    "rule": "#444444",
    "dim": "#8a8a8a",
    "head": "#d7af5f",
    "dims": "#87afd7",
    "shape": "#87d787 bold",
    "code": "#d0d0d0",
    "pass": "#5fd75f",
    "fail": "#ff5f5f",
    "over": "#ff5f5f",
    "internal": "#d787d7",
    "trap": "#ffaf00",
    "why": "#d7d7af italic",
    "bar": "bg:#262626 #bcbcbc",
    "bar.drill": "bg:#005f87 #ffffff",
    "bar.label": "bg:#3a3a3a #d7d7d7",
    "bar.clock": "bg:#262626 #87d787",
    "bar.over": "bg:#870000 #ffffff",
    "bar.passed": "bg:#005f00 #ffffff",
    "bar.busy": "bg:#af8700 #000000",
    "bar.mode": "bg:#5f5f87 #ffffff",
    "bar.message": "bg:#262626 #ffd75f",
    "bar.hints": "bg:#262626 #8a8a8a",
    "question": "bg:#af5f00 #ffffff",
    "line-number": "#585858",
}


def repl_style() -> BaseStyle:
    return merge_styles([style_from_pygments_cls(get_style_by_name("monokai")), Style.from_dict(RULES)])
