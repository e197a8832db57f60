"""Typed access to a parsed YAML mapping that records every problem instead of
raising, so that one pass over a spec reports all of its problems together.

What a key may hold comes from the schema (grader.spec.schema): a reader is
made for one section and knows that section's keys, kinds and required ones.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from grader.errors import cut
from grader.spec.records import MAX_TIMEOUT
from grader.spec.schema import SECTIONS
from grader.spec.yaml_lines import _line_of


class _Problems:
    def __init__(self, path: Path):
        self.path = path
        self.items: list[tuple[int, str, str]] = []

    def add(self, line: int, where: str, message: str) -> None:
        self.items.append((line, where, message))

    def lines(self) -> list[str]:
        return [f"{self.path}:{line}: {where}: {msg}" for line, where, msg in sorted(self.items, key=lambda x: x[0])]


class _Reader:
    """Typed access to a mapping that records every problem instead of raising."""

    def __init__(self, data: Any, where: str, line: int, problems: _Problems, section: str):
        self.fields = SECTIONS[section]
        allowed = set(self.fields)
        self.data = data if isinstance(data, dict) else {}
        self.where = where
        self.line = getattr(data, "line", line)
        self.p = problems
        if not isinstance(data, dict):
            problems.add(line, where or "(top level)", f"expected a mapping, got {type(data).__name__}")
        for key in self.data:
            if key not in allowed:
                hint = _close(key, allowed)
                problems.add(_line_of(self.data, key, self.line), self._at(key), f"unknown key{hint}")

    def _at(self, key: Any) -> str:
        return f"{self.where}.{_k(key)}" if self.where else _k(key)

    def line_of(self, key: Any) -> int:
        return _line_of(self.data, key, self.line)

    def has(self, key: str) -> bool:
        return key in self.data

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, checked against its kind in the schema; ``default`` when
        it is absent (a problem when the schema requires it) or of the wrong kind."""
        kind, required = self.fields[key].kind, self.fields[key].required
        if key not in self.data:
            if required:
                self.p.add(self.line, self._at(key), "missing required field")
            return default
        value = self.data[key]
        if kind is None:
            return value
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            if abs(value) > 1e300:
                self.p.add(self.line_of(key), self._at(key), "the number is too large")
                return default
            return float(value)
        if isinstance(value, bool) and kind is not bool and (kind is int or (isinstance(kind, tuple) and bool not in kind)):
            self.p.add(self.line_of(key), self._at(key), f"expected {_kind_name(kind)}, got a boolean")
            return default
        if not isinstance(value, kind):
            self.p.add(self.line_of(key), self._at(key), f"expected {_kind_name(kind)}, got {type(value).__name__}")
            return default
        return value


def _k(key: Any, limit: int = 40) -> str:
    """A key as it appears in a problem's field path: its text, cut at ``limit`` characters."""
    return cut(key, limit)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {str: "text", int: "an integer", float: "a number", bool: "true/false", list: "a list", dict: "a mapping"}
    if isinstance(kind, tuple):
        return " or ".join(names.get(k, k.__name__) for k in kind)
    return names.get(kind, kind.__name__)


def _close(key: Any, allowed: set[str]) -> str:
    import difflib

    match = difflib.get_close_matches(str(key)[:100], sorted(allowed), n=1)
    return f" (did you mean '{match[0]}'?)" if match else f" (allowed: {', '.join(sorted(allowed))})"


def _timeout(r: _Reader, key: str, problems: _Problems, where: str, default: float | None) -> float | None:
    """A `timeout` in seconds: finite, above 0, at most MAX_TIMEOUT (a problem otherwise)."""
    value = r.get(key, default=default)
    if value is None or value == default:
        return value
    if not math.isfinite(value) or not 0 < value <= MAX_TIMEOUT:
        problems.add(r.line_of(key), where, f"must be a number of seconds above 0 and at most {MAX_TIMEOUT:g}, not {value!r}")
        return default
    return float(value)


def _str_list(top: _Reader, key: str, problems: _Problems) -> list[str]:
    raw = top.get(key, default=[]) or []
    out = []
    for i, item in enumerate(raw):
        if not isinstance(item, str) or not item.strip():
            problems.add(_line_of(raw, i, top.line_of(key)), f"{key}[{i}]", "expected non-empty text")
        else:
            out.append(item)
    return out


def _as_list(value: Any) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]
