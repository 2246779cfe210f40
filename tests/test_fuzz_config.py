"""Fuzzing config loading: any TOML-ish text (mostly the config's own keys, tables and values,
shuffled and mangled) loads, or raises the config's :class:`UserError` with a message; never
a traceback-worthy exception. Also checks that a located error names an existing line."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from arena.errors import UserError
from arena.settings.config import load_config

pytestmark = pytest.mark.slow  # hypothesis, hundreds of examples

FUZZ = settings(max_examples=300, deadline=None, derandomize=True)  # same examples in CI

KEYS = ["game", "bots", "format", "rounds", "games_per_pairing", "tc", "concurrency", "seed",
        "output", "event", "report_every", "name", "cmd", "cwd", "env", "protocol", "options",
        "legal", "limits", "sandbox", "variant", "memory_mb", "cpu_seconds", "processes",
        "file_mb", "max_plies", "draw_rules", "file", "random_plies", "order", "plies", "elo0",
        "elo1", "alpha", "beta", "model", "target", "tcc", '"quoted key"', "a.b"]
VALUES = ['"dobutsu"', '"jungle"', '"donkan"', '"chess"', '"10+0.1"', '"10+"', '"inf"',
          '"st=0.05"', "2", "0", "-1", "1.5", "1e400", "true", "false", '""', '"bot.sh"',
          '["./bot.sh"]', '["{python}", "bot.py"]', '["missing"]', "[]", "[1, 2]",
          '{ A = "1" }', '{ memory_mb = 0 }', '"bwrap"', '"none"', '"uci"', '"gauntlet"',
          "9" * 30, '"\\u0000"', "'literal'", '"""multi\nline"""', "[[", "= =", "nan",
          "1979-05-27T07:32:00Z", '"random"', '"book.pgn"', '"pdn"']
HEADERS = ["[[bots]]", "[bots.limits]", "[adjudication]", "[openings]", "[sprt]",
           "[game_options]", "[bots.env]", "[bots.options]", "[[bots.limits]]", "[game]",
           "[ bots ]", "[bots", "[[adjudication]]"]
lines = st.one_of(
    st.builds(lambda k, v: f"{k} = {v}", st.sampled_from(KEYS), st.sampled_from(VALUES)),
    st.sampled_from(HEADERS),
    st.text(max_size=20),
)
GOOD_HEAD = 'game = "dobutsu"\ntc = "10+0.1"\n'
GOOD_BOT = '[[bots]]\nname = "{name}"\ncmd = ["./bot.sh"]\n'
texts = st.one_of(
    st.lists(lines, max_size=14).map("\n".join),
    st.lists(lines, max_size=6).map(
        lambda ls: GOOD_HEAD + "\n".join(ls) + "\n" + GOOD_BOT.format(name="a")
        + GOOD_BOT.format(name="b")),
    st.lists(lines, max_size=6).map(
        lambda ls: GOOD_HEAD + GOOD_BOT.format(name="a") + "\n".join(ls)),
)


def load_text(text: str | bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        bot = base / "bot.sh"
        bot.write_text("#!/bin/sh\nexit 0\n")
        bot.chmod(0o755)
        (base / "bot.py").write_text("")
        path = base / "t.toml"
        path.write_bytes(text.encode() if isinstance(text, str) else text)
        try:
            load_config(path)
        except UserError as exc:
            message = str(exc)
            assert message and "Traceback" not in message
            where = re.match(re.escape(str(path)) + r":(\d+): ", message)
            if where:  # a located error points at a line of the file
                count = len(path.read_bytes().splitlines())
                assert 1 <= int(where.group(1)) <= max(count, 1), message


@FUZZ
@given(texts)
@example(GOOD_HEAD + GOOD_BOT.format(name="a") + GOOD_BOT.format(name="b"))
def test_config_texts_load_or_raise_user_errors(text: str) -> None:
    load_text(text)


@FUZZ
@given(st.binary(max_size=120))
@example(b'game = "dobutsu"\xff\n')
def test_config_bytes_load_or_raise_user_errors(raw: bytes) -> None:
    load_text(raw)
