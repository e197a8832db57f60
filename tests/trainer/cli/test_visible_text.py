"""What reaches the terminal from a person's input or an author's pack is made visible and cut
(issue 34, item 6): a 120 KB `--variant` value is echoed cut, not whole; format characters in a
DRILL_PATH pack's title and prompt (U+200B, U+2028, U+2029, U+FEFF, U+00AD) are shown as escapes
in `drill list`, `drill show` and the REPL's header, never printed raw."""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from trainer.cli import _register, app

_register()

LONG = "a" * 120_000
# the format (Cf) and separator (Zl, Zp) characters the spec loader lets through (it refuses
# C0/C1 controls and the bidi controls, U+202E among them, at parse)
HIDDEN = "\u200b\u2028\u2029\ufeff\u00ad"


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


@pytest.mark.parametrize("value", [f"mask={LONG}", f"{LONG}=pad", LONG, f"mask=pad mask={LONG}"])
def test_a_long_variant_value_is_echoed_cut(value):
    result = invoke("show", "mha-padding", "--variant", value)
    assert result.exit_code == 2, result.output[:300]
    assert len(result.output) < 400 and "..." in result.output, result.output[:300]
    assert "Traceback" not in result.output


def test_a_long_team_variant_and_drill_id_are_echoed_cut(tmp_path):
    for argv in (["team", "new", "--drills", "mha-padding", "--variant", f"mha-padding:mask={LONG}",
                  "--out", str(tmp_path / "s.yaml")],
                 ["team", "new", "--drills", "mha-padding", "--variant", f"mha-padding:{LONG}",
                  "--out", str(tmp_path / "s.yaml")],
                 ["show", LONG]):
        result = invoke(*argv)
        assert result.exit_code == 2 and len(result.output) < 400, result.output[:300]
    assert not (tmp_path / "s.yaml").exists()


@pytest.fixture
def pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A DRILL_PATH pack with one drill whose title and prompt hold format characters."""
    root = tmp_path / "pack"
    root.mkdir()
    monkeypatch.setenv("DRILL_PATH", str(root))
    assert invoke("new", "fmt-drill", "--topic", "broadcasting").exit_code == 0
    spec = root / "broadcasting" / "fmt-drill.yaml"
    text = spec.read_text(encoding="utf-8")
    text = text.replace("title: Centre each row", r'title: "Centre\u200b each\u2028row \ufeffnow\u2029"')
    start, end = text.index("prompt: |"), text.index("dims:")
    text = text[:start] + r'prompt: "x is (B, N):\u200b\u00ad centre\u2028each row."' + "\n" + text[end:]
    spec.write_text(text, encoding="utf-8")
    return root


def _no_hidden(text: str) -> None:
    assert not any(ch in text for ch in HIDDEN), [hex(ord(ch)) for ch in text if ch in HIDDEN]


def test_format_characters_in_a_packs_title_and_prompt_are_shown_escaped(pack):
    listed = invoke("list", "--topic", "broadcasting")
    assert listed.exit_code == 0, listed.output
    _no_hidden(listed.output)
    assert "Centre\\u200b each\\u2028row \\ufeffnow\\u2029" in listed.output
    shown = invoke("show", "fmt-drill")
    assert shown.exit_code == 0, shown.output
    _no_hidden(shown.output)
    assert "fmt-drill: Centre\\u200b each\\u2028row \\ufeffnow\\u2029" in shown.output
    assert "x is (B, N):\\u200b\\xad centre\\u2028each row." in shown.output


def test_the_repl_header_shows_them_escaped_too(pack):
    from trainer.catalogue_cache import load_catalogue
    from trainer.repl.header import fitted_header, header_fragments, title_fragments
    from trainer.text.verdict import plain

    spec = load_catalogue().get("fmt-drill")
    for fragments in (title_fragments(spec, 120), header_fragments(spec, 120), fitted_header(spec, 60, 4)):
        text = plain(fragments)
        _no_hidden(text)
        assert "\\u200b" in text


def test_the_repl_output_pane_shows_them_escaped(pack):
    """A hint, a note or a trap's message from the pack reaches the output pane escaped."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from trainer.catalogue_cache import load_catalogue
    from trainer.repl.app import DrillRepl
    from trainer.text.verdict import plain

    spec = load_catalogue().get("fmt-drill")
    with create_pipe_input() as pipe:
        repl = DrillRepl(spec, object(), input=pipe, output=DummyOutput())
        repl.output = [("class:hint", "hint 1/2: reduce\u200b over\u2028the last axis\n"), ("", "\tkept\n")]
        view = plain(repl.output_view())
    _no_hidden(view)
    assert "hint 1/2: reduce\\u200b over\\u2028the last axis" in view and "\tkept" in view
