"""YAML with lines: a loader whose mappings and lists remember the line of each
entry, so every spec problem can name `file:line`.

It inherits safe_yaml's limits (no aliases, bounded depth, plain keys, no
control characters in text); only the line bookkeeping is added here.
"""
from __future__ import annotations

from typing import Any

import yaml

from grader.spec import safe_yaml


class _LineLoader(safe_yaml.LimitedLoader):
    """No aliases, bounded depth, plain keys, no control characters in text (safe_yaml);
    mappings and lists remember their lines."""

    plain_text = True


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> dict:
    safe_yaml.check_keys(node)
    mapping = {}
    lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in mapping:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        mapping[key] = loader.construct_object(value_node, deep=True)
        lines[key] = key_node.start_mark.line + 1
    return _Mapping(mapping, lines, node.start_mark.line + 1)


class _Mapping(dict):
    """A dict that remembers the line of each key."""

    def __init__(self, data: dict, lines: dict, line: int):
        super().__init__(data)
        self.lines = lines
        self.line = line


class _Seq(list):
    def __init__(self, data: list, lines: list[int], line: int):
        super().__init__(data)
        self.lines = lines
        self.line = line


def _construct_sequence(loader: _LineLoader, node: yaml.SequenceNode) -> list:
    items = [loader.construct_object(child, deep=True) for child in node.value]
    return _Seq(items, [child.start_mark.line + 1 for child in node.value], node.start_mark.line + 1)


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def _line_of(container: Any, key: Any, fallback: int) -> int:
    if isinstance(container, _Mapping):
        return container.lines.get(key, container.line)
    if isinstance(container, _Seq) and isinstance(key, int) and key < len(container.lines):
        return container.lines[key]
    return fallback
