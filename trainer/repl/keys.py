"""Key bindings: Enter runs a `:`-line, auto-indent, command keys, y/n answers, Ctrl-C."""
from __future__ import annotations

from typing import Any

from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition, vi_navigation_mode
from prompt_toolkit.key_binding.vi_state import InputMode
from prompt_toolkit.key_binding import KeyBindings, merge_key_bindings
from prompt_toolkit.key_binding.key_processor import KeyPressEvent

from trainer.repl.commands import parse_command_line

INDENT = "    "


def next_indent(line: str) -> str:
    """The indentation for the line after `line`: kept, one deeper after a ':'."""
    stripped = line.rstrip()
    indent = line[: len(line) - len(line.lstrip())]
    if stripped.endswith(":") and not stripped.lstrip().startswith("#"):
        return indent + INDENT
    first = stripped.lstrip().split(" ", 1)[0] if stripped.strip() else ""
    if first in ("return", "pass", "raise", "break", "continue") and len(indent) >= len(INDENT):
        return indent[: -len(INDENT)]
    return indent


def without_line(text: str, row: int) -> Document:
    """The text with command line `row` taken out. The last line stays as an empty line
    (the cursor on it); a line in the middle goes, the cursor back to the end of the line
    before it, where the person was before opening the line."""
    lines = text.split("\n")
    if row >= len(lines) - 1:
        lines[-1] = ""
        return Document("\n".join(lines), len("\n".join(lines)))
    del lines[row]
    if row == 0:
        return Document("\n".join(lines), 0)
    return Document("\n".join(lines), sum(len(line) + 1 for line in lines[:row]) - 1)


def build_key_bindings(repl: Any) -> KeyBindings:
    kb = KeyBindings()
    asking = Condition(lambda: repl.question is not None)
    free = ~asking

    @kb.add("y", filter=asking, eager=True)
    @kb.add("Y", filter=asking, eager=True)
    def _yes(event: KeyPressEvent) -> None:
        repl.answer(True)

    @kb.add("n", filter=asking, eager=True)
    @kb.add("N", filter=asking, eager=True)
    @kb.add("escape", filter=asking, eager=True)
    @kb.add("c-c", filter=asking, eager=True)
    def _no(event: KeyPressEvent) -> None:
        repl.answer(False)

    @kb.add("<any>", filter=asking, eager=True)
    def _swallow(event: KeyPressEvent) -> None:
        pass

    @kb.add("enter", filter=free)
    def _enter(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        doc = buf.document
        line = doc.current_line
        if parse_command_line(line) is not None:
            buf.set_document(without_line(doc.text, doc.cursor_position_row))
            repl.run_line(line)
            return
        indent = next_indent(doc.current_line_before_cursor)
        buf.insert_text("\n" + indent)

    @kb.add("tab", filter=free)
    def _tab(event: KeyPressEvent) -> None:
        col = event.current_buffer.document.cursor_position_col
        event.current_buffer.insert_text(" " * (len(INDENT) - col % len(INDENT)))

    @kb.add("s-tab", filter=free)
    def _dedent(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        before = buf.document.current_line_before_cursor
        if before.endswith(INDENT) and not before.strip():
            buf.delete_before_cursor(len(INDENT))

    @kb.add("backspace", filter=free)
    def _backspace(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        before = buf.document.current_line_before_cursor
        if before and not before.strip() and len(before) % len(INDENT) == 0:
            buf.delete_before_cursor(len(INDENT))
        else:
            buf.delete_before_cursor(1)

    def bind(key: str, name: str) -> None:
        @kb.add(key, filter=free)
        def _run(event: KeyPressEvent) -> None:
            repl.run_command(name)

    for cmd in {c.info.name: c for c in repl.commands.values()}.values():
        if cmd.info.key:
            bind(cmd.info.key, cmd.info.name)
    bind("f5", "submit")
    bind("f6", "try")

    @kb.add(":", filter=free & vi_navigation_mode)
    def _vi_colon(event: KeyPressEvent) -> None:
        """vi normal mode: ':' starts a command line at the end of the buffer, as in vi."""
        buf = event.current_buffer
        text = buf.text if buf.text.endswith("\n") or not buf.text else buf.text + "\n"
        buf.set_document(Document(text + ":", len(text) + 1))
        event.app.vi_state.input_mode = InputMode.INSERT

    @kb.add("c-c", filter=free)
    def _interrupt(event: KeyPressEvent) -> None:
        repl.interrupt()

    # Up and Down only move the cursor; earlier submissions come back with Alt-P / Alt-N
    # (a stray Up on the first line must never swap the buffer out).
    vi_nav = free & vi_navigation_mode

    @kb.add("up", filter=free)
    @kb.add("c-p", filter=free)
    @kb.add("k", filter=vi_nav)
    def _cursor_up(event: KeyPressEvent) -> None:
        event.current_buffer.cursor_up(count=event.arg)

    @kb.add("down", filter=free)
    @kb.add("j", filter=vi_nav)
    def _cursor_down(event: KeyPressEvent) -> None:
        event.current_buffer.cursor_down(count=event.arg)

    after_pass = Condition(lambda: repl.passed() and repl.options.in_session)

    @kb.add("c-n", filter=free)
    def _next_or_down(event: KeyPressEvent) -> None:
        """Ctrl-N: the next item after a pass in a warm-up or mock; otherwise a line down."""
        if after_pass():
            repl.run_command("next")
        else:
            event.current_buffer.cursor_down(count=event.arg)

    @kb.add("escape", "p", filter=free)
    def _history_back(event: KeyPressEvent) -> None:
        event.current_buffer.history_backward(count=event.arg)

    @kb.add("escape", "n", filter=free)
    def _history_forward(event: KeyPressEvent) -> None:
        event.current_buffer.history_forward(count=event.arg)

    @kb.add("pageup", filter=free)
    def _up(event: KeyPressEvent) -> None:
        repl.scroll_page(-1)

    @kb.add("pagedown", filter=free)
    def _down(event: KeyPressEvent) -> None:
        repl.scroll_page(1)

    return merge_key_bindings([kb])
