"""The tournament config: its typed shape, loading it from TOML, and the checks a person needs.

A config is decoded into its typed shape (:class:`Config`) by the settings' one located
decoder (:mod:`arena.settings.located`), so that a typo'd key is caught by the decoder itself
(``forbid_unknown_fields``) and every error reads ``FILE:LINE: key: what is wrong; how to fix
it``; a bots file's entries are merged in first (:mod:`arena.settings.botsfile`), and bots'
commands are resolved by :mod:`arena.settings.botcommand`.

Paths in a config (bot ``cwd``, the openings file, ``output``) are relative to the config file's
directory, so a config works from wherever ``arena run`` is started. In a bot's ``cmd``, the
placeholder ``{python}`` stands for the Python running the arena (the project's virtualenv),
so sample bots written in Python need no install step: ``cmd = ["{python}", "bot.py"]``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Final, Literal

import msgspec

from arena.errors import UserError
from arena.openings import BookFormat, BookOrder
from arena.settings.botcommand import prepare_bot
from arena.settings.botsfile import EntryOrigin, expand_uses
from arena.settings.located import (
    ConfigError,
    Fail,
    convert_toml,
    line_index,
    toml_error,
)
from referee.adjudication import Adjudication
from referee.botspec import BotSpec
from referee.gameoptions import game_options_for  # names checked as the referee will
from referee.games import GameError, game_names, get_game, is_game
from referee.timecontrol import TimeControl

MAX_SCHEDULED_GAMES: Final = 10_000_000
"""Most games one config may schedule. The schedule is built whole before the first game
(its ids make resume exact), a few hundred bytes a game: ten million is a few GB, and more
than any machine plays in one run. The count is worked out from the keys, before anything is
built, so a typo'd ``games_per_pairing = 2000000000`` is an error, not gigabytes."""

OptionValue = str | int | float | bool

SEE_KEYS: Final = "see examples/README.md for every key"
"""The fix of last resort for a config's key: where every key is documented."""


class OpeningsConfig(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """Where the games start: a book of positions or games (``file``), or N random plies."""

    file: str | None = None
    """An opening book (:mod:`arena.openings.book`): ``.epd`` positions, ``.pgn``/``.pdn``
    games, or our own lines (``fen <position text>`` / ``moves m1 m2 ...``, ``#`` comments)."""
    format: BookFormat | None = None
    """The book's format when its suffix does not say it (``lines``, ``epd``, ``pgn``, ``pdn``)."""
    order: BookOrder | None = None
    """``sequential`` (file order; a tournament's default) or ``random`` (shuffled by ``seed``;
    a league always draws at random)."""
    plies: Annotated[int, msgspec.Meta(gt=0)] | None = None
    """Use only the first N plies of each book game (PGN/PDN, ``moves`` lines)."""
    random_plies: Annotated[int, msgspec.Meta(ge=0)] | None = None
    """Play this many random legal plies (drawn from ``seed``) before the bots take over."""


class SprtConfig(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """Stop a two-bot match early once the SPRT accepts H0 (elo0) or H1 (elo1)."""

    elo0: float
    elo1: float
    alpha: Annotated[float, msgspec.Meta(gt=0, lt=1)] = 0.05
    beta: Annotated[float, msgspec.Meta(gt=0, lt=1)] = 0.05
    model: Literal["pentanomial", "trinomial"] = "pentanomial"
    """Pentanomial counts colour pairs (right for paired openings); trinomial counts games."""
    elo_model: Literal["normalized", "logistic"] = "normalized"
    """What elo0/elo1 mean: normalized Elo (nElo; fastchess's default, and what fishtest's
    test form sets) or logistic Elo. nElo bounds do not depend on the draw rate."""


class TuneParam(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """One option a tune moves (``[[tune.params]]``), its gains written at their end
    (:mod:`arena.tune.spsa`)."""

    option: str
    """The option's name, as the bot declares it."""
    start: float
    c: Annotated[float, msgspec.Meta(gt=0)]
    """The last iteration's perturbation (fishtest's ``c_end``), in the option's units."""
    r: Annotated[float, msgspec.Meta(gt=0)] | None = None
    """The last step per unit of result over ``c²`` (fishtest's ``r_end``; 0.002 when
    neither ``r`` nor ``a`` is given)."""
    a: Annotated[float, msgspec.Meta(gt=0)] | None = None
    """The step size's numerator itself, instead of ``r``."""
    min: float | None = None
    """The lowest value (default: the bot's declared ``min`` of a spin option; required for
    a string option, which a tune sends as a real number)."""
    max: float | None = None


class ProofConfig(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """``[tune.proof]``: the SPRT of the tuned values against the start (logistic Elo of the
    tuned side; :class:`ratings.verdict.VerdictSettings`)."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: Annotated[float, msgspec.Meta(gt=0, lt=0.5)] = 0.05
    beta: Annotated[float, msgspec.Meta(gt=0, lt=0.5)] = 0.05
    max_games: Annotated[int, msgspec.Meta(ge=2)] = 2000


class TuneFile(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """A file of only ``[tune]`` (``arena league tune``: the bot and the game are the
    league's)."""

    tune: TuneConfig


class TuneConfig(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """``[tune]``: tune one bot's options by games (``arena tune``), then prove the tune."""

    games: Annotated[int, msgspec.Meta(ge=2)]
    """The tuning's length in games, two per iteration: SPSA's schedule is written for it."""
    params: list[TuneParam]
    bot: str = ""
    """The bot (one of ``[[bots]]``) whose options are tuned; it plays itself. ``arena league
    tune`` names a stored version instead."""
    minutes: Annotated[float, msgspec.Meta(gt=0)] | None = None
    """Stop planning iterations this long after the tune began (the proof still runs)."""
    a_ratio: Annotated[float, msgspec.Meta(ge=0)] = 0.1
    """SPSA's ``A`` as a fraction of the iterations (fishtest's default)."""
    alpha: Annotated[float, msgspec.Meta(gt=0)] = 0.602
    gamma: Annotated[float, msgspec.Meta(gt=0)] = 0.101
    proof: ProofConfig = msgspec.field(default_factory=ProofConfig)


class Config(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """One tournament, exactly as written in the TOML file (paths not yet resolved)."""

    game: str
    bots: list[BotSpec]
    bots_file: str | None = None
    """A file of ``[[bots]]`` entries (relative to the config file) that a bot table names
    with ``use = "NAME"`` (:mod:`arena.settings.botsfile`)."""
    format: Literal["round-robin", "gauntlet", "pyramid", "knockout", "swiss"] = "round-robin"
    """``gauntlet``: the first bot plays every other bot; the others do not meet. ``pyramid``:
    the pairs of a round-robin, each bot meeting the bots above it in config order in turn.
    ``knockout`` (:mod:`arena.formats.knockout`) and ``swiss`` (:mod:`arena.formats.swiss`): each
    round's pairings follow the results of the rounds before it."""
    rounds: Annotated[int, msgspec.Meta(gt=0)] = 1
    """Round-robin, gauntlet, pyramid: how many times the schedule is repeated. Swiss: the
    number of rounds (required). Knockout: not allowed (it plays until one bot is left)."""
    tiebreak_pairs: Annotated[int, msgspec.Meta(ge=0)] = 2
    """Knockout: colour pairs added, one at a time, to a match tied after its games; a match
    still tied after them goes to the better seed."""
    bye_points: Annotated[float, msgspec.Meta(ge=0, le=1)] = 1.0
    """Swiss: what a bye is worth, per game of a pairing (1: as winning them all)."""
    seeds: list[str] | None = None
    """Knockout, Swiss: the seeding, best first, naming every bot once (default: the order of
    the ``[[bots]]`` tables)."""
    games_per_pairing: Annotated[int, msgspec.Meta(gt=0)] = 2
    """Per pairing and round; even, each pair of games replays one opening with colours swapped."""
    tc: str | None = None
    """Time control for every bot (cutechess syntax); a bot's own ``tc`` overrides it."""
    concurrency: Annotated[int, msgspec.Meta(gt=0)] = 1
    think_slots: Annotated[int, msgspec.Meta(ge=0)] | None = None
    """At most this many bots think on a clock at once, however many games are open
    (:mod:`referee.thinkslots`); None: the cores the arena may use; 0: no limit.
    ``--think-slots`` overrides it."""
    openings: OpeningsConfig | None = None
    adjudication: Adjudication = msgspec.field(default_factory=Adjudication)
    game_options: dict[str, OptionValue] = {}
    seed: int = 0
    output: str | None = None
    """Output directory (relative to the config file); ``arena run --output`` overrides it."""
    sprt: SprtConfig | None = None
    event: str | None = None
    """PGN Event name; defaults to the config file's stem."""
    report_every: Annotated[int, msgspec.Meta(ge=0)] = 0
    """Rebuild the report every N finished games (0: only at the end)."""
    tune: TuneConfig | None = None
    """``arena tune``: the bot and options to tune (``arena run`` refuses such a config)."""

    def seeding(self) -> list[str]:
        """The bots' names, best seed first: ``seeds``, else the ``[[bots]]`` order."""
        return list(self.seeds) if self.seeds is not None else [b.name for b in self.bots]


class LoadedConfig(msgspec.Struct, frozen=True):
    """A checked config together with where it came from and its bots ready to start."""

    path: Path
    text: str
    config: Config
    bots: tuple[BotSpec, ...]
    """Bots with ``cwd`` absolute, ``{python}`` substituted and cmd[0] resolved."""
    openings_file: Path | None
    time_controls: Mapping[str, TimeControl]
    """Each bot's time control by name, parsed once here: its own ``tc``, else the top-level
    one (every bot has one: a config without is refused)."""

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    @property
    def copy_text(self) -> str:
        """What the run directory keeps as its config copy: the config as written, or, when
        its bots come from a bots file, the config with every bot written out as it plays
        (so that the copy alone says what ran, and the report can read it)."""
        if self.config.bots_file is None:
            return self.text
        whole = msgspec.structs.replace(self.config, bots=list(self.bots), bots_file=None)
        return (f"# {self.path}, its bots taken from {self.config.bots_file}\n"
                + msgspec.toml.encode(whole).decode())

    @property
    def event(self) -> str:
        return self.config.event or self.path.stem

    @property
    def game_options(self) -> dict[str, str]:
        """Game options as the referee takes them (text values)."""
        return {k: _option_text(v) for k, v in self.config.game_options.items()}

    def default_output(self) -> Path | None:
        if self.config.output is None:
            return None
        return (self.base_dir / self.config.output).resolve()


def _option_text(value: OptionValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# --------------------------------------------------------------------------- loading
def load_config(path: str | os.PathLike[str]) -> LoadedConfig:
    """Read, decode and check a config; raise :class:`ConfigError` naming file, line and fix."""
    file = Path(path)
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read config {file}: {exc.strerror or exc}") from None
    text = raw.decode("utf-8", errors="replace")
    try:
        # Decoded as a whole first: ``use`` tables are filled from the bots file before
        # the typed conversion checks every key.
        data = msgspec.toml.decode(raw)
    except msgspec.DecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML: {exc}") from None
    origins = expand_uses(data, file.resolve().parent,
                          lambda where, problem, fix="": toml_error(file, text, where,
                                                                    problem, fix))
    config = convert_toml(data, Config, file, text, see=SEE_KEYS)
    return check_config(file.resolve(), text, config, shown_as=file, origins=origins)


def check_config(
    path: Path, text: str, config: Config, *, shown_as: Path | None = None,
    origins: Sequence[EntryOrigin | None] = (),
) -> LoadedConfig:
    """Everything the decoder cannot see: names, paths, time controls, counts. ``origins``
    says which bots came from a bots file (by index; none when empty): their keys are
    checked, and their paths resolved, where they were written."""
    show = shown_as or path
    base = path.parent

    def fail(where: Sequence[str | int], problem: str, fix: str = "") -> ConfigError:
        return toml_error(show, text, where, problem, fix)

    def bot_fail(i: int) -> Fail:
        """Errors about bot ``i``: at the config's line for a key its table wrote, else at
        the bots file's entry."""
        origin = origins[i] if i < len(origins) else None
        if origin is None:
            return fail

        def at_origin(where: Sequence[str | int], problem: str, fix: str = "") -> ConfigError:
            key = where[2] if len(where) > 2 else None
            if key in origin.overrides:
                return fail(where, problem, fix)
            return origin.file.fail(["bots", origin.index, *where[2:]], problem, fix)
        return at_origin

    def bot_base(i: int) -> Path:
        origin = origins[i] if i < len(origins) else None
        return base if origin is None else origin.file.folder

    if not is_game(config.game):
        raise fail(
            ["game"], f"unknown game {config.game!r}", f"known games: {', '.join(game_names())}"
        )
    options = {k: _option_text(v) for k, v in config.game_options.items()}
    try:
        get_game(config.game).start(**game_options_for(config.game, options))
    except (GameError, TypeError) as exc:
        raise fail(
            ["game_options", *list(options)[:1]], f"bad game options for {config.game}: {exc}"
        ) from None
    if len(config.bots) < (1 if config.tune is not None else 2):
        raise fail(
            ["bots"],
            f"a tournament needs at least 2 bots, found {len(config.bots)}",
            "add [[bots]] tables",
        )
    if config.games_per_pairing % 2:
        raise fail(
            ["games_per_pairing"],
            f"must be even, got {config.games_per_pairing}",
            "each opening is played twice with colours swapped; use 2, 4, ...",
        )
    _check_format(config, text, fail)
    _check_schedule_size(config, fail)
    seen: dict[str, int] = {}
    for i, bot in enumerate(config.bots):
        if not bot.name.strip():
            raise fail(["bots", i, "name"], "empty bot name", "give every bot a unique name")
        if bot.name in seen:
            raise fail(
                ["bots", i, "name"],
                f"duplicate bot name {bot.name!r} (also bots[{seen[bot.name]}])",
                "give every bot a unique name",
            )
        seen[bot.name] = i
        if bot.protocol == "hub" and config.game != "draughts":
            raise bot_fail(i)(
                ["bots", i, "protocol"],
                f"bot {bot.name!r} speaks Hub, a draughts protocol; it cannot play "
                f"{config.game}",
                'use protocol = "native" or "uci" for this game',
            )
    default_tc = _parse_tc(config.tc, ["tc"], fail)
    if config.tc is None:
        for i, bot in enumerate(config.bots):
            if bot.tc is None:
                raise fail(
                    ["bots", i, "name"],
                    f"no time control for bot {bot.name!r}: without a clock a bot that hangs "
                    "stalls its game forever",
                    'set tc = "10+0.1" at the top (or tc = "inf" to play without a clock)',
                )
    bots: list[BotSpec] = []
    time_controls: dict[str, TimeControl] = {}
    for i, bot in enumerate(config.bots):
        own = _parse_tc(bot.tc, ["bots", i, "tc"], bot_fail(i))
        bots.append(prepare_bot(bot, i, bot_base(i), bot_fail(i)))
        resolved = own if own is not None else default_tc
        assert resolved is not None  # a bot without a time control is refused above
        time_controls[bot.name] = resolved
    openings_file: Path | None = None
    if config.openings is not None:
        openings_file = _openings_file(config.game, config.openings, base, fail)
    if config.sprt is not None:
        if len(config.bots) != 2:
            raise fail(["sprt"], f"SPRT needs exactly 2 bots, found {len(config.bots)}")
        if config.sprt.elo0 >= config.sprt.elo1:
            raise fail(["sprt", "elo1"], "elo1 must be greater than elo0")
        if config.sprt.alpha + config.sprt.beta >= 1:
            raise fail(["sprt", "beta"], "alpha + beta must be less than 1")
    if config.tune is not None:
        _check_tune(config.tune, [b.name for b in config.bots], fail)
    return LoadedConfig(path=path, text=text, config=config, bots=tuple(bots),
                        openings_file=openings_file, time_controls=time_controls)


def _check_tune(tune: TuneConfig, names: list[str], fail: Fail) -> None:
    """What can be told of ``[tune]`` without the bot (its declared options are
    :mod:`arena.tune.options`'s)."""
    if tune.bot not in names:
        raise fail(["tune", "bot"], f"no bot named {tune.bot!r}" if tune.bot else "no bot",
                   f"name one of the [[bots]]: {', '.join(names)}")
    if not tune.params:
        raise fail(["tune", "params"], "no option to tune", "add [[tune.params]] tables")
    seen: set[str] = set()
    for i, param in enumerate(tune.params):
        where: list[str | int] = ["tune", "params", i]
        if param.option in seen:
            raise fail([*where, "option"], f"option {param.option!r} is tuned twice")
        seen.add(param.option)
        if param.r is not None and param.a is not None:
            raise fail([*where, "a"], f"option {param.option!r}: give r or a, not both")
        low = param.min if param.min is not None else -math.inf
        high = param.max if param.max is not None else math.inf
        if not low <= param.start <= high:
            raise fail([*where, "start"], f"option {param.option!r}: start {param.start:g} "
                       f"is outside min..max ({low:g}..{high:g})")
    if tune.proof.elo0 >= tune.proof.elo1:
        raise fail(["tune", "proof", "elo1"], "elo1 must be greater than elo0")


def _openings_file(game: str, openings: OpeningsConfig, base: Path, fail: Fail) -> Path | None:
    """The book's absolute path (None without one), after the checks of its keys."""
    from arena.openings.book import book_format, format_problem

    if openings.file is not None and openings.random_plies is not None:
        raise fail(["openings"], "give either 'file' or 'random_plies', not both")
    if openings.file is None:
        for key in ("format", "order", "plies"):
            if getattr(openings, key) is not None:
                raise fail(["openings", key], f"{key!r} applies to an openings file, and "
                           "there is none", 'add file = "book.pgn" (or remove the key)')
        return None
    path = (base / openings.file).resolve()
    if not path.is_file():
        raise fail(
            ["openings", "file"],
            f"openings file {str(path)!r} not found",
            "paths are relative to the config file's directory",
        )
    fmt = book_format(path, openings.format)
    if (problem := format_problem(fmt, game, openings.plies)) is not None:
        key = "plies" if fmt == "epd" else ("format" if openings.format else "file")
        raise fail(["openings", key], f"{openings.file}: {problem}")
    return path


ROUNDS_FORMATS: Final = ("knockout", "swiss")
"""Formats whose rounds follow the results (:mod:`arena.formats.meetings`)."""


def _check_format(config: Config, text: str, fail: Fail) -> None:
    """The keys each format needs or refuses, where the decoder cannot tell."""
    written = line_index(text)
    bots = len(config.bots)
    if config.format == "swiss":
        if ("rounds",) not in written:
            raise fail(["format"], "a swiss tournament needs its number of rounds",
                       f"add rounds = N (at most {max_swiss_rounds(bots)} for {bots} bots)")
        if config.rounds > max_swiss_rounds(bots):
            raise fail(["rounds"], f"{config.rounds} swiss rounds for {bots} bots: at most "
                       f"{max_swiss_rounds(bots)} rounds can be paired without a rematch",
                       f"use rounds = {max_swiss_rounds(bots)} or fewer, or a round-robin")
    elif config.format == "knockout" and ("rounds",) in written:
        raise fail(["rounds"], "a knockout plays until one bot is left; it has no 'rounds'",
                   "remove the key (games_per_pairing sets the length of each match)")
    for key, owner in (("tiebreak_pairs", "knockout"), ("bye_points", "swiss")):
        if (key,) in written and config.format != owner:
            raise fail([key], f"{key} is a setting of format = {owner!r}, and this "
                       f"tournament's format is {config.format!r}", "remove the key")
    if config.seeds is not None:
        if config.format not in ROUNDS_FORMATS:
            raise fail(["seeds"], f"seeds orders a knockout or a swiss tournament, and this "
                       f"tournament's format is {config.format!r}", "remove the key")
        names = [bot.name for bot in config.bots]
        for seed in config.seeds:
            if seed not in names:
                raise fail(["seeds"], f"seeds names {seed!r}, which is no bot of this config",
                           f"bots: {', '.join(names)}")
            if config.seeds.count(seed) > 1:
                raise fail(["seeds"], f"seeds names {seed!r} twice", "name every bot once")
        missing = [name for name in names if name not in config.seeds]
        if missing:
            raise fail(["seeds"], f"seeds leaves out {', '.join(map(repr, missing))}",
                       "name every bot once, best seed first")


def max_swiss_rounds(players: int) -> int:
    """Most rounds of a Swiss tournament without a rematch: n-1 for an even field, n for an
    odd one (one bye each). Here, not with the Swiss pairings (:mod:`arena.formats.swiss`):
    the config is checked against it, and the formats are a floor above the settings."""
    return players - 1 if players % 2 == 0 else players


def scheduled_games(config: Config) -> tuple[int, int]:
    """(pairings, games) the config's schedule holds, by arithmetic alone (see
    :func:`arena.formats.schedule.pairings`): nothing is built. A knockout counts every tie-break
    pair it may need; a Swiss tournament has one pairing per two bots and round."""
    bots = len(config.bots)
    if config.format == "knockout":
        pairs = bots - 1
        return pairs, pairs * (config.games_per_pairing + 2 * config.tiebreak_pairs)
    if config.format == "swiss":
        pairs = bots // 2 * config.rounds
        return pairs, pairs * config.games_per_pairing
    pairs = bots - 1 if config.format == "gauntlet" else bots * (bots - 1) // 2
    return pairs, pairs * config.games_per_pairing * config.rounds


def _check_schedule_size(config: Config, fail: Fail) -> None:
    pairs, total = scheduled_games(config)
    if total <= MAX_SCHEDULED_GAMES:
        return
    factors: list[tuple[int, list[str | int]]] = [
        (config.games_per_pairing, ["games_per_pairing"]), (config.rounds, ["rounds"]),
        (pairs, ["bots"])]
    key = max(factors, key=lambda f: f[0])[1]
    raise fail(
        key,
        f"the schedule would hold {total:,} games (pairings {pairs:,} x games_per_pairing "
        f"{config.games_per_pairing:,} x rounds {config.rounds:,}), more than the maximum of "
        f"{MAX_SCHEDULED_GAMES:,}",
        "lower games_per_pairing or rounds (a longer match is several runs)",
    )


def _parse_tc(text: str | None, where: list[str | int], fail: Fail) -> TimeControl | None:
    """The time control written at ``where`` (None when none is), parsed: the one place a
    tournament's time-control texts are read."""
    if text is None:
        return None
    try:
        return TimeControl.parse(text)
    except ValueError as exc:
        raise fail(
            where,
            f"bad time control {text!r}: {exc}",
            "examples: '10+0.1' (10 s + 0.1 s/move), '40/60' (40 moves in 60 s), "
            "'st=0.05' (fixed time per move)",
        ) from None
