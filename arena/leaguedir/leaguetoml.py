"""``league.toml``: what a league plays (everything a tournament config says about games, but
no bots: they are submitted) and how its nights are played.

A night is played as a tournament whose config is this file plus one ``[[bots]]`` table per
active version (:func:`night_config`): the checks, the error messages (``FILE:LINE: key:
problem; fix``) and the meaning of every game key are the tournament's own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Final

import msgspec

from arena.errors import UserError
from arena.leaguedir.directory import LeagueDir
from arena.leaguedir.nightwindow import EXAMPLE, NightWindow, parse_window
from arena.leaguedir.versions import Version, bot_spec
from arena.settings.config import (
    SEE_KEYS,
    Config,
    LoadedConfig,
    OpeningsConfig,
    OptionValue,
    check_config,
)
from arena.settings.located import decode_toml, toml_error
from ratings.verdict import (
    DEFAULT_ALPHA,
    DEFAULT_BETA,
    DEFAULT_ELO0,
    DEFAULT_ELO1,
    DEFAULT_MAX_GAMES,
    VerdictSettings,
)
from referee.adjudication import Adjudication
from referee.botspec import BotSpec, Limits, Restart, Sandbox
from referee.process.botview import hide_from_bots

DEFAULT_PLACEMENT_OPPONENTS: Final = 4
DEFAULT_NIGHT_GAMES: Final = 200


DEFAULT_TEST_SHARE: Final = 0.25
"""Share of a night's pairs (after placement) given to the open parent tests (the pairing's
:data:`arena.league.pairing.TEST_SHARE`, which cannot be imported from this floor)."""


class VerdictPolicy(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """``[league.verdict]``: the test of each new version against its parent
    (:mod:`ratings.verdict`; docs/ratings.md)."""

    elo0: Annotated[float, msgspec.Meta(ge=-1000, le=1000)] = DEFAULT_ELO0
    """H0: the new version is at most this much stronger (logistic Elo)."""
    elo1: Annotated[float, msgspec.Meta(ge=-1000, le=1000)] = DEFAULT_ELO1
    """H1: at least this much stronger; above ``elo0``."""
    alpha: Annotated[float, msgspec.Meta(gt=0, lt=0.5)] = DEFAULT_ALPHA
    """Chance of deciding "better" when it is not."""
    beta: Annotated[float, msgspec.Meta(gt=0, lt=0.5)] = DEFAULT_BETA
    """Chance of missing an improvement of ``elo1``."""
    max_games: Annotated[int, msgspec.Meta(ge=2, le=10_000_000)] = DEFAULT_MAX_GAMES
    """Games after which a test still open stops, undecided."""
    share: Annotated[float, msgspec.Meta(ge=0, le=1)] = DEFAULT_TEST_SHARE
    """Share of each night's pairs (after placement) given to the open tests."""

    def settings(self) -> VerdictSettings:
        return VerdictSettings(self.elo0, self.elo1, self.alpha, self.beta, self.max_games)


class Policy(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """``[league]``: how a night is played and how a submission is accepted."""

    placement_opponents: Annotated[int, msgspec.Meta(ge=1, le=64)] = DEFAULT_PLACEMENT_OPPONENTS
    """A new version first plays this many opponents spread over the field's ratings."""
    placement_pairs: Annotated[int, msgspec.Meta(ge=1, le=100)] = 1
    """Colour pairs (two games, one opening, colours swapped) against each of them."""
    pairing: Annotated[str, msgspec.Meta(pattern="^(information|round-robin)$")] = "information"
    """After placement: ``information`` pairs where the ratings are least known (close
    ratings, wide error bars, few games between the two); ``round-robin`` cycles every pair."""
    night_games: Annotated[int, msgspec.Meta(ge=1)] = DEFAULT_NIGHT_GAMES
    """Games in a night when ``arena league run`` is given no ``--until``, ``--hours`` or
    ``--games``."""
    build_seconds: Annotated[float, msgspec.Meta(gt=0, le=86_400)] = 600.0
    """Wall-clock limit of a submission's build."""
    build_memory_mb: Annotated[int, msgspec.Meta(ge=16, le=1 << 20)] = 2048
    """Memory limit of a submission's build."""
    upload_mb: Annotated[int, msgspec.Meta(ge=1, le=4096)] = 20
    """Largest upload (an archive of a bot's folder, or one source file), as received."""
    unpacked_mb: Annotated[int, msgspec.Meta(ge=1, le=512)] = 200
    """Most bytes an uploaded archive may unpack to, all files together (zip bombs stop
    here); at most the store's own limit on a folder, 512 MB."""
    upload_files: Annotated[int, msgspec.Meta(ge=1, le=10_000)] = 2000
    """Most members (files, folders, links) of an uploaded archive; at most the store's own
    limit on a folder, 10,000."""
    upload_path_chars: Annotated[int, msgspec.Meta(ge=16, le=4096)] = 200
    """Longest member path of an uploaded archive, in characters."""
    pending_per_author: Annotated[int, msgspec.Meta(ge=1, le=100)] = 3
    """Submissions an author may have waiting or running at once on ``arena serve
    --submissions`` (their builds run one at a time)."""
    cluster: str | None = None
    """Play the nights on a Dask cluster (``local:N`` or ``tcp://HOST:8786``), as ``--cluster``."""
    schedule: str | None = None
    """When ``arena league run --nightly`` plays the nights: ``"22:00-07:00"``, every day, in
    the machine's local time (:mod:`arena.leaguedir.nightwindow`)."""
    webhook: Annotated[str, msgspec.Meta(pattern=r"^https?://[^\s/]+(/\S*)?$",
                                         max_length=2000)] | None = None
    """``http(s)://...``: a JSON message is POSTed there after each night closes (its
    ratings, verdicts and faults: :mod:`arena.league.webhook`)."""
    verdict: VerdictPolicy = msgspec.field(default_factory=VerdictPolicy)


class LeagueFile(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """The whole of ``league.toml``."""

    game: str
    tc: str
    event: str | None = None
    concurrency: Annotated[int, msgspec.Meta(gt=0)] = 1
    think_slots: Annotated[int, msgspec.Meta(ge=0)] | None = None
    openings: OpeningsConfig | None = None
    adjudication: Adjudication = msgspec.field(default_factory=Adjudication)
    game_options: dict[str, OptionValue] = {}
    seed: int = 0
    report_every: Annotated[int, msgspec.Meta(ge=0)] = 0
    limits: Limits = msgspec.field(default_factory=Limits)
    """Every version's limits (memory, processes, files, tmp)."""
    sandbox: Sandbox = "auto"
    restart: Restart = "auto"
    league: Policy = msgspec.field(default_factory=Policy)


class LeagueSettings(msgspec.Struct, frozen=True):
    """``league.toml`` read and checked."""

    path: Path
    text: str
    file: LeagueFile

    @property
    def policy(self) -> Policy:
        return self.file.league

    @property
    def event(self) -> str:
        return self.file.event or f"{self.path.parent.name} league"

    @property
    def window(self) -> NightWindow | None:
        """``[league] schedule``, parsed (checked when the file was loaded)."""
        schedule = self.policy.schedule
        return None if schedule is None else parse_window(schedule)

    @property
    def verdict(self) -> VerdictSettings:
        return self.file.league.verdict.settings()


def load_settings(path: Path) -> LeagueSettings:
    """Read and check ``league.toml``; a mistake is a
    :class:`~arena.settings.located.ConfigError` naming the line."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    file = decode_toml(raw, LeagueFile, path, see=SEE_KEYS)
    settings = LeagueSettings(path.resolve(), raw.decode("utf-8", errors="replace"), file)
    if file.league.schedule is not None:
        try:
            parse_window(file.league.schedule)
        except ValueError as exc:
            raise toml_error(path, settings.text, ("league", "schedule"), str(exc),
                             f'write it as START-END, e.g. schedule = "{EXAMPLE}"') from None
    _check_verdict(file.league.verdict, path, settings.text)
    # Every game key checked now, with two placeholder bots, not at the first night.
    placeholder = BotSpec(name="check", cmd=["true"])
    night_config(settings, [placeholder, msgspec.structs.replace(placeholder, name="check2")])
    return settings


class _VerdictPart(msgspec.Struct):
    verdict: VerdictPolicy = msgspec.field(default_factory=VerdictPolicy)


class _VerdictOnly(msgspec.Struct):
    """``league.toml`` read for its ``[league.verdict]`` alone (the rest is not checked)."""

    league: _VerdictPart = msgspec.field(default_factory=_VerdictPart)


def verdict_settings(league: LeagueDir) -> VerdictSettings:
    """The league's ``[league.verdict]``, read for the league report (which does not need the
    rest of ``league.toml`` to hold); the defaults for a directory without the file."""
    if not league.config.is_file():
        return VerdictSettings()
    raw = league.config.read_bytes()
    verdict = decode_toml(raw, _VerdictOnly, league.config, see=SEE_KEYS).league.verdict
    _check_verdict(verdict, league.config, raw.decode("utf-8", errors="replace"))
    return verdict.settings()


def _check_verdict(verdict: VerdictPolicy, path: Path, text: str) -> None:
    if not verdict.elo0 < verdict.elo1:
        raise toml_error(path, text, ["league", "verdict", "elo1"],
                         f"must be above elo0 ({verdict.elo0:g}), got {verdict.elo1:g}",
                         "H1 (elo1) is the improvement the test looks for, H0 (elo0) the "
                         "one it rules out: e.g. elo0 = 0, elo1 = 30")


def night_config(settings: LeagueSettings, bots: list[BotSpec]) -> LoadedConfig:
    """The tournament a night plays: ``league.toml``'s game keys and these bots (already
    resolved: absolute ``cmd`` and ``cwd``), checked as any config is."""
    f = settings.file
    config = Config(
        game=f.game, bots=[_with_defaults(bot, f) for bot in bots], tc=f.tc,
        concurrency=f.concurrency, think_slots=f.think_slots, openings=f.openings,
        adjudication=f.adjudication,
        game_options=f.game_options, seed=f.seed, event=settings.event,
        report_every=f.report_every,
    )
    return check_config(settings.path, settings.text, config)


def versions_config(settings: LeagueSettings, league: LeagueDir, versions: list[Version],
                    others: tuple[BotSpec, ...] = ()) -> LoadedConfig:
    """The tournament in which ``versions`` (and ``others``, already resolved) play: each
    version started as every start of it is, a night's game or its submission's check
    alike (its command in its stored folder, the league's limits, sandbox and restart), so
    that the check sees what a night will see. The whole league is hidden from them: none of
    its files is bound into a bot's view, nor reached as a runtime, even where a system
    folder holds the league (/opt); each version's own folder is bound on top."""
    hide_from_bots(league.root)
    return night_config(settings, [*(bot_spec(league, v) for v in versions), *others])


def night_config_text(loaded: LoadedConfig) -> str:
    """The night's config as TOML, for its run directory's ``config.toml`` (the night's own
    report reads its settings there)."""
    return msgspec.toml.encode(loaded.config).decode()


def _with_defaults(bot: BotSpec, f: LeagueFile) -> BotSpec:
    return msgspec.structs.replace(bot, limits=f.limits, sandbox=f.sandbox, restart=f.restart)
