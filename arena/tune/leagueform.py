"""``arena league tune``: a stored version's options tuned as the league plays it.

The version starts as a night starts it (its stored folder, the league's limits, sandbox and
restart, the league hidden from it) and the games are the league's (game, time control,
openings, adjudication); what to tune is a file holding only ``[tune]`` (the bot is the
version). The tune runs in ``LEAGUE/tunes/NAME-N/`` unless told otherwise, and ends with the
command that submits the tuned values as the bot's next version.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import msgspec

from arena.errors import UserError
from arena.leaguedir.directory import LeagueDir, is_league
from arena.leaguedir.leaguetoml import load_settings, versions_config
from arena.leaguedir.versions import Version, parse_label, read_versions
from arena.settings.config import LoadedConfig, TuneFile, check_config
from arena.settings.located import decode_toml
from referee.botspec import BotSpec

TUNES_DIR = "tunes"
"""Where a league's tunes go (``LEAGUE/tunes/NAME-N``)."""


def find_version(league: LeagueDir, label: str) -> Version:
    """The stored version ``NAME@N`` (``NAME``: its newest)."""
    name, number = parse_label(label)
    versions = [v for v in read_versions(league) if v.name == name]
    if not versions:
        raise UserError(f"{league.root}: no bot named {name!r}")
    if number is None:
        return versions[-1]
    for version in versions:
        if version.number == number:
            return version
    raise UserError(f"{league.root}: {name} has no version {number} (versions: "
                    f"{', '.join(v.label for v in versions)})")


def league_tune_config(root: Path, label: str, tune_file: Path) -> tuple[LoadedConfig, Version]:
    """The tune of version ``label`` of the league at ``root`` as a checked config: the
    league's game settings, the version as a night starts it, ``tune_file``'s ``[tune]``
    (its errors located in that file)."""
    if not is_league(root):
        raise UserError(f"{root}: not a league directory (no league.toml)")
    league = LeagueDir(root)
    version = find_version(league, label)
    try:
        raw = tune_file.read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read {tune_file}: {exc.strerror or exc}") from None
    tune = decode_toml(raw, TuneFile, tune_file).tune
    settings = load_settings(league.config)
    placeholder = BotSpec(name="check", cmd=["true"])  # a night needs two bots
    night = versions_config(settings, league, [version], others=(placeholder,))
    spec = night.bots[0]
    openings = night.config.openings
    # league.toml's paths are the league's, not the tune file's
    if openings is not None and openings.file is not None:
        openings = msgspec.structs.replace(
            openings, file=str(settings.path.parent / openings.file))
    config = msgspec.structs.replace(
        night.config, bots=[spec], tune=msgspec.structs.replace(tune, bot=spec.name),
        openings=openings, event=f"{settings.event}: tune of {version.label}")
    text = raw.decode("utf-8", errors="replace")
    return check_config(tune_file.resolve(), text, config, shown_as=tune_file), version


def default_output(root: Path, version: Version) -> Path:
    return root / TUNES_DIR / f"{version.name}-{version.number}"


def submit_hint(root: Path, version: Version, values: dict[str, float | int]) -> str:
    """The command that submits the tuned values as the bot's next version."""
    league = LeagueDir(root)
    options = [f"--option={k}={v}" for k, v in values.items()]
    others = [f"--option={k}={v}" for k, v in version.options.items() if k not in values]
    where = ([str(league.stored(version.source))] if version.source is not None
             else ["--", *version.cmd])
    argv = ["arena", "league", "submit", str(root), version.name]
    if version.source is not None:
        argv += [*where, *others, *options]
    else:
        argv += [*others, *options, *where]
    return shlex.join(argv)
