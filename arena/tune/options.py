"""A tune's parameters checked against what the bot declares, before any game.

The bot is started once and its handshake read (``option name Knight type spin default 300
min 0 max 2000``): an option it does not declare, a range outside its declared ``min`` and
``max``, a type that takes no number (check, combo, button) or a string option whose default is
not a number is a config error naming the bot, the option and the value, at the line of
``[[tune.params]]`` that asks for it (:mod:`arena.settings.located`). What passes becomes
SPSA's typed parameters (:class:`arena.tune.spsa.Param`): a spin option's range defaults to
the declared one and its values are sent rounded.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec
import trio

from arena.errors import UserError
from arena.settings.config import LoadedConfig, TuneConfig
from arena.settings.located import ConfigError, toml_error
from arena.tune.spsa import R_END, Param
from protocol.messages import OptionDecl
from referee.botspec import BotSpec
from referee.connection import BotError
from referee.match import open_bot
from referee.process.boterrors import BotStartError

PROBE_TIMEOUT_S = 30.0
"""How long the bot may take to start and declare its options (a busy machine's margin)."""


def declared_options(spec: BotSpec) -> dict[str, OptionDecl]:
    """The options the bot declares in its handshake (it is started once, then ended)."""
    async def probe() -> dict[str, OptionDecl]:
        bare = msgspec.structs.replace(spec, options={})
        with trio.fail_after(PROBE_TIMEOUT_S * 2):
            connection = await open_bot(bare, timeout=PROBE_TIMEOUT_S)
            try:
                return dict(connection.options)
            finally:
                await connection.aclose()

    try:
        return trio.run(probe)
    except (BotError, BotStartError, OSError, trio.TooSlowError) as exc:
        raise UserError(f"cannot start bot {spec.name!r} to read the options it declares: "
                        f"{exc or type(exc).__name__}") from None


def tune_params(loaded: LoadedConfig, declared: Mapping[str, OptionDecl]) -> list[Param]:
    """``[tune]``'s parameters as SPSA takes them, checked against the bot's ``declared``
    options; raises :class:`ConfigError` at the offending key."""
    tune = loaded.config.tune
    assert tune is not None
    bot = tune.bot

    def fail(i: int, key: str, problem: str, fix: str = "") -> ConfigError:
        return toml_error(loaded.path, loaded.text, ["tune", "params", i, key],
                          f"bot {bot!r}: {problem}", fix)

    params: list[Param] = []
    for i, want in enumerate(tune.params):
        decl = declared.get(want.option)
        if decl is None:
            raise fail(i, "option", f"declares no option {want.option!r}",
                       f"declared: {', '.join(sorted(declared)) or 'none'}")
        if decl.type == "spin":
            low = want.min if want.min is not None else decl.min
            high = want.max if want.max is not None else decl.max
            for key, value in (("min", low), ("max", high)):
                if value is None:
                    raise fail(i, key, f"spin option {want.option!r} declares no {key}",
                               f"give {key} = ... in this table")
            assert low is not None and high is not None
            if decl.min is not None and low < decl.min:
                raise fail(i, "min", f"option {want.option!r}: min {low:g} is below the "
                           f"declared min {decl.min}")
            if decl.max is not None and high > decl.max:
                raise fail(i, "max", f"option {want.option!r}: max {high:g} is above the "
                           f"declared max {decl.max}")
            integer = True
        elif decl.type == "string":
            if want.min is None or want.max is None:
                raise fail(i, "min" if want.min is None else "max",
                           f"string option {want.option!r} has no declared range",
                           "give min and max in this table")
            if decl.default is not None and not _is_number(decl.default):
                raise fail(i, "option", f"string option {want.option!r} has the non-numeric "
                           f"default {decl.default!r}: a tune sends it numbers")
            low, high, integer = want.min, want.max, False
        else:
            raise fail(i, "option", f"option {want.option!r} is a {decl.type} option; only "
                       "spin and string options take numbers")
        if not low <= want.start <= high:
            raise fail(i, "start", f"option {want.option!r}: start {want.start:g} is outside "
                       f"{low:g}..{high:g}")
        if low >= high:
            raise fail(i, "max", f"option {want.option!r}: max {high:g} is not above min "
                       f"{low:g}")
        params.append(Param(want.option, want.start, low, high, want.c,
                            r_end=None if want.a is not None else (want.r or R_END),
                            a=want.a, integer=integer))
    return params


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def tune_config(loaded: LoadedConfig) -> TuneConfig:
    """The config's ``[tune]``, or an error saying that it has none."""
    if loaded.config.tune is None:
        raise UserError(f"{loaded.path}: no [tune] section: `arena tune` needs one (see "
                        "docs/tune.md); `arena run` plays a tournament")
    return loaded.config.tune
