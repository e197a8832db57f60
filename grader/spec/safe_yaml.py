"""YAML that cannot explode: no aliases or anchors, bounded nesting, plain keys.

PyYAML's SafeLoader still expands aliases (a 479-byte "billion laughs" file
builds billions of list items), recurses once per nesting level (a deep file
ends in RecursionError) and lets a value's own constructor raise ValueError
(``2026-13-45``, an integer of 5000 digits). `LimitedLoader` refuses aliases
and anchors, nesting deeper than `MAX_DEPTH` and more than `MAX_NODES` values
while composing, before anything is built, requires every mapping key to be a plain scalar, and `load`
turns every problem into a ``yaml.MarkedYAMLError`` that carries the line.
"""
from __future__ import annotations

import unicodedata
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.nodes import MappingNode, Node, ScalarNode

MAX_DEPTH = 32
MAX_NODES = 10_000  # the largest built-in drill spec has about 650; PyYAML builds roughly 10 K per second


class YamlLimitError(yaml.MarkedYAMLError):
    """A document this loader refuses (alias, anchor, depth, key); ``problem_mark`` has the line."""


def _refuse(problem: str, mark: Any) -> YamlLimitError:
    return YamlLimitError(None, None, problem, mark)


_BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def control_character(text: str) -> str | None:
    """The first control character in ``text`` other than tab and line breaks (ESC, BEL, a bidi
    override...), written as an escape (``\\x1b``), or None."""
    for ch in text:
        if ch in "\t\n\r":
            continue
        if unicodedata.category(ch) == "Cc" or ch in _BIDI:
            return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"
    return None


_LIBYAML = bool(getattr(yaml, "__with_libyaml__", False))

if _LIBYAML:  # libyaml's scanner and parser make the events (a spec reads about 7x faster); PyYAML's
    # Python Composer, first in the MRO, still builds the nodes, so every limit here applies as they are composed
    class _Events(Composer, yaml.CSafeLoader):
        def __init__(self, stream: Any) -> None:
            yaml.CSafeLoader.__init__(self, stream)
            Composer.__init__(self)
else:  # a PyYAML built without libyaml: its own Python scanner and parser
    _Events = yaml.SafeLoader  # type: ignore[misc, assignment]


class LimitedLoader(_Events):
    """SafeLoader without aliases or anchors, nesting at most MAX_DEPTH, scalar keys only;
    with ``plain_text`` set, no control characters in any text (a spec's prompt reaches
    the terminal)."""

    plain_text = False

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0
        self.last_mark = None

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            raise _refuse(f"aliases (*{event.anchor}) are not allowed; write the value out", event.start_mark)
        if getattr(event, "anchor", None) is not None:
            raise _refuse(f"anchors (&{event.anchor}) are not allowed; write the value out", event.start_mark)
        self._nodes += 1
        if self._nodes > MAX_NODES:
            raise _refuse(f"more than {MAX_NODES} values in one file", event.start_mark)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _refuse(f"nested more than {MAX_DEPTH} levels deep", event.start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        self.last_mark = node.start_mark
        return super().construct_object(node, deep=deep)

    def construct_scalar(self, node: Node) -> Any:
        value = super().construct_scalar(node)
        if self.plain_text and isinstance(value, str):
            bad = control_character(value)
            if bad:
                raise _refuse(f"the text holds the control character {bad}; write plain text", node.start_mark)
        return value

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict:
        check_keys(node)
        return super().construct_mapping(node, deep=deep)


def check_keys(node: MappingNode) -> None:
    """Every key of a mapping node must be a scalar (a name, a number), never a list or mapping."""
    for key_node, _ in node.value:
        if not isinstance(key_node, ScalarNode):
            raise _refuse("a key must be a plain name or number, not a list or a mapping", key_node.start_mark)


def load(text: str, loader: type[LimitedLoader] = LimitedLoader) -> Any:
    """Parse one document; every failure is a yaml.YAMLError (MarkedYAMLError where the line is known)."""
    instance = loader(text)
    try:
        return instance.get_single_data()
    except yaml.MarkedYAMLError as exc:
        if "maximum nesting depth" in str(exc.problem):  # libyaml's own depth limit, met before this one
            raise _refuse(f"nested more than {MAX_DEPTH} levels deep", exc.problem_mark) from None
        raise
    except yaml.YAMLError:
        raise
    except (ValueError, TypeError, OverflowError) as exc:  # a scalar's own constructor: bad date, huge int
        reason = str(exc).split(";")[0].split(": value has")[0][:120]
        raise _refuse(f"a value cannot be read: {reason}", instance.last_mark) from None
    except RecursionError:
        raise _refuse("nested too deeply", instance.last_mark) from None
    except MemoryError:
        raise _refuse("too large to load", instance.last_mark) from None
    finally:
        instance.dispose()


def problem_line(exc: yaml.YAMLError, text: str | None = None) -> tuple[int, str]:
    """(1-based line or 0, the problem in words) of a YAML error (``text``: the document,
    to place a reader error, which has a position but no line)."""
    if isinstance(exc, yaml.reader.ReaderError):
        if not isinstance(text, str):
            line = 0
        elif _LIBYAML:  # libyaml counts the position in bytes of UTF-8
            line = text.encode("utf-8", "surrogatepass")[:exc.position].count(b"\n") + 1
        else:
            line = text.count("\n", 0, exc.position) + 1
        char = exc.character if isinstance(exc.character, int) else ord(exc.character)
        return line, f"the character #x{char:04x} is not allowed in YAML ({exc.reason})"
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line = mark.line + 1 if mark is not None else 0
    problem = getattr(exc, "problem", None) or str(exc)
    return line, str(problem)
