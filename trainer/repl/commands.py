"""`:`-commands, registered by a decorator (litecli style).

A handler is a method marked with `@command(...)`; `commands_of(obj)` collects
the marked methods of an object into a table by name and alias. The table is
built per REPL, so no registry lives at module level.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

COMMAND_LINE = re.compile(r"^\s*:([a-z]+)(?:\s+([\w.-]+))?\s*$")  # ':hint', ':hint 2'; never code


@dataclass(frozen=True)
class CommandInfo:
    name: str
    help: str
    key: str | None = None  # the key shown in the bottom bar, e.g. "c-s"
    aliases: tuple[str, ...] = ()
    lockable: bool = False  # locked in a mock interview


@dataclass(frozen=True)
class Command:
    info: CommandInfo
    run: Callable[[str], Any]


def command(name: str, *, help: str, key: str | None = None, aliases: tuple[str, ...] = (),
            lockable: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.__repl_command__ = CommandInfo(name, help, key, aliases, lockable)  # type: ignore[attr-defined]
        return fn

    return mark


def commands_of(obj: object) -> dict[str, Command]:
    """Every marked method of obj, by name and by alias."""
    table: dict[str, Command] = {}
    for attr in dir(type(obj)):
        fn = getattr(type(obj), attr, None)
        info = getattr(fn, "__repl_command__", None)
        if info is None:
            continue
        bound = getattr(obj, attr)
        cmd = Command(info, bound)
        for name in (info.name, *info.aliases):
            table[name] = cmd
    return table


def parse_command_line(line: str) -> tuple[str, str] | None:
    """':submit' -> ('submit', ''); ':hint 2' -> ('hint', '2'); other lines -> None."""
    m = COMMAND_LINE.match(line)
    if not m:
        return None
    return m.group(1), m.group(2) or ""


def key_label(key: str) -> str:
    """'c-s' -> '^S', 'f5' -> 'F5'."""
    if key.startswith("c-"):
        return "^" + key[2:].upper()
    return key.upper()
