"""Word-wrap styled lines for the output pane (prompt_toolkit wraps mid-word)."""
from __future__ import annotations

from trainer.text.markup import printable
from trainer.text.verdict import Fragments


def visible(fragments: Fragments) -> Fragments:
    """`fragments` with every hidden character shown as an escape (trainer.text.markup.printable),
    newlines and tabs kept: what a pane shows comes from a pack's hints and notes, a solution's
    output, a trap's message, and none of it may reach the terminal raw."""
    out: Fragments = []
    for style, text, *rest in fragments:
        out.append((style, printable(text, keep="\n\t"), *rest))  # type: ignore[arg-type]
    return out


def wrap_line(line: Fragments, width: int) -> list[Fragments]:
    """One styled line as several, broken at spaces where possible; continuation lines are
    indented four more than the line's own indentation."""
    chars = [(style, ch) for style, text, *_ in line for ch in text]
    text = "".join(ch for _, ch in chars)
    if width < 20 or len(text) <= width:
        return [line]
    indent = len(text) - len(text.lstrip(" ")) + 4
    if indent > width // 2:
        indent = 4
    out: list[Fragments] = []
    start, room = 0, width
    while start < len(chars):
        end = start + room
        if end >= len(chars):
            end = len(chars)
        else:
            space = text.rfind(" ", start + 1, end + 1)
            if space > start + room // 3:
                end = space
        piece = chars[start:end]
        frags: Fragments = [("", " " * indent)] if out else []
        for style, ch in piece:
            if frags and frags[-1][0] == style:
                frags[-1] = (style, frags[-1][1] + ch)
            else:
                frags.append((style, ch))
        out.append(frags)
        start = end
        while start < len(chars) and text[start] == " ":
            start += 1
        room = width - indent
    return out


def lines_of(fragments: Fragments) -> list[Fragments]:
    """`fragments` split at its newlines (prompt_toolkit's split_lines)."""
    from prompt_toolkit.formatted_text.utils import split_lines

    return list(split_lines(fragments))


def wrap_all(fragments: Fragments, width: int) -> Fragments:
    """Every line of `fragments` word-wrapped, joined back with newlines."""
    out: Fragments = []
    lines = [piece for line in lines_of(fragments) for piece in wrap_line(line, width)]
    for i, line in enumerate(lines):
        out.extend(line)
        if i < len(lines) - 1:
            out.append(("", "\n"))
    return out
