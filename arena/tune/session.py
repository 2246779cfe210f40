"""``arena tune``: a tune played into its run directory by the run driver, then proved.

A tune is a tournament config with a ``[tune]`` section (:class:`~arena.settings.config.
TuneConfig`). Its bot is started once to read the options it declares, and the parameters
are checked against them before any game (:mod:`arena.tune.options`). Then the run driver
(:func:`arena.run.driver.drive`) plays the :class:`~arena.tune.tuneplan.TunePlanner`'s games as it
plays a tournament's: concurrency, time control, openings, adjudication, the sandbox,
``--cluster``, the journal, the live files for ``arena serve``, the report. What is a tune's
own: the tune log beside the journal, the tuned values as a bots-file entry
(``tuned-bots.toml``), the proof's verdict, and the tune's page in the report.

Exit status as ``arena run``'s: 0 once the proof has closed, 1 when games failed or are
missing, 2 for a mistake in the command or the config, 3 for a fault of the machine, 130
when stopped; running the same command again resumes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from arena.atomicfile import write_atomic
from arena.errors import UserError
from arena.run.driver import Played, PlaySettings, RunPlan, Source, drive
from arena.run.prepare import lock_run_dir
from arena.rundir.journal import Journal
from arena.rundir.layout import RunDir
from arena.rundir.tunelog import Began, read_tune_log
from arena.settings.config import LoadedConfig, load_config
from arena.tune.options import declared_options, tune_config, tune_params
from arena.tune.spsa import Param
from arena.tune.tuneplan import SIDES, TUNED, TunePlanner, side_name, tune_loaded

if TYPE_CHECKING:
    from arena.run.runner import RunResult
    from reports.rating_tables import RatedJournal


class TuneSettings(PlaySettings, frozen=True):
    """``arena tune``'s arguments, typed."""

    config: Path | LoadedConfig = Path()
    output: Path | None = None


@dataclass(frozen=True)
class TuneOutcome:
    status: int
    run_dir: RunDir
    played: Played


def run_tune(settings: TuneSettings) -> TuneOutcome:
    """Tune (or resume tuning) the config's bot, then prove the tune; raises
    :class:`UserError` for a mistake in the config (exit status 2)."""
    loaded = (settings.config if isinstance(settings.config, LoadedConfig)
              else load_config(settings.config))
    tune = tune_config(loaded)
    spec = next(b for b in loaded.bots if b.name == tune.bot)
    params = tune_params(loaded, declared_options(spec))
    out = RunDir(settings.output or loaded.default_output()
                 or Path("runs") / loaded.path.stem)
    try:
        lock = lock_run_dir(out)
    except OSError as exc:
        raise UserError(f"cannot use output directory {out.root}: {exc.strerror or exc}") from None
    try:
        played = drive(tune_plan(settings, loaded, params, out), settings)
    finally:
        os.close(lock)
    return TuneOutcome(played.status, out, played)


def check_resumable(began: Began, planner_began: Began, where: Path) -> None:
    """A resumed tune must be the same tune: bot, options, starts, steps, length, seed."""
    for key in ("bot", "options", "start", "c", "iterations", "seed"):
        old, new = getattr(began, key), getattr(planner_began, key)
        if old != new:
            raise UserError(f"{where}: this tune began with {key} {old!r}, the config now says "
                            f"{new!r}; use another --output, or the old settings")


def tune_plan(settings: PlaySettings, loaded: LoadedConfig, params: list[Param],
              out: RunDir) -> RunPlan:
    """The tune as the run driver plays it."""
    tune = tune_config(loaded)
    games_loaded = tune_loaded(loaded, tune.bot)
    planner: TunePlanner | None = None

    def source(journal: Journal) -> Source:
        nonlocal planner
        log = read_tune_log(out.tune_log)
        if log.began is not None:  # a resume: the same tune, or a clear refusal
            check_resumable(log.began, Began(
                bot=tune.bot, options=[p.name for p in params], start=[p.start for p in params],
                c=[p.c_end for p in params], iterations=tune.games // 2,
                seed=loaded.config.seed, at=log.began.at), out.tune_log)
        planner = TunePlanner(loaded=games_loaded, tune=tune, params=params, out=out,
                              log=log, done={})
        for record in journal.summaries:
            planner.record(record)
        tuner = planner

        def total() -> int:
            return 2 * tuner.gains.iterations + (2 * tuner.proof.counted.pairs + 2)

        return Source(
            pending=tuner,
            total=total,
            grown_total=lambda done: max(done + 1, total()),
            intro=lambda concurrency: (
                f"arena: tune {tune.bot}: {', '.join(p.name for p in params)} over "
                f"{tuner.gains.iterations} iterations ({tune.games} games), then the proof "
                f"against the start; concurrency {concurrency} -> {out.root}"),
            account=lambda journaled: f"{journaled} games in {out.journal}",
            complete=lambda result: tuner.proof.closed,
            record=tuner.record,
            stop_when=tuner.stop_when,
            order=tuner.order,
        )

    def conclude(result: RunResult, complete: bool, rated: RatedJournal | None) -> None:
        if planner is None:
            return
        say = settings.say
        log = planner.log
        if log.tuned is not None:
            values = ", ".join(f"{p.name}={v}" for p, v in zip(params, log.tuned.values,
                                                                 strict=True))
            say(f"arena: tuned {tune.bot} over {log.tuned.iterations} iterations: {values}")
            try:
                write_tuned_bots(out, loaded, tune.bot, params, log.tuned.values)
                say(f"arena: tuned bot: {out.tuned_bots} (use = "
                    f"\"{side_name(tune.bot, TUNED)}\")")
            except OSError as exc:
                settings.warn(f"cannot write {out.tuned_bots}: {exc.strerror or exc}")
        if planner.proof.verdict is not None:
            say(f"arena: proof, {side_name(tune.bot, TUNED)} against the start: "
                f"{planner.proof.verdict.describe()}")

    def after_report(result: RunResult, complete: bool) -> None:
        if not settings.report:
            return
        from reports.tune_html import build_tune_page

        try:
            page = build_tune_page(out.root)
        except Exception as exc:  # a report problem must not cost the tune its exit status
            settings.warn(f"tune page not built: {type(exc).__name__}: {exc}")
            return
        settings.say(f"arena: tune page: {page}")

    return RunPlan(
        loaded=games_loaded, out=out, title=f"tune {tune.bot}",
        names=[side_name(tune.bot, s) for s in SIDES], source=source,
        config_text=loaded.copy_text, config_path=loaded.path, hide=(loaded.path,),
        conclude=conclude, after_report=after_report)


def write_tuned_bots(out: RunDir, loaded: LoadedConfig, bot: str, params: list[Param],
                     values: list[float | int]) -> Path:
    """The tuned bot as a bots-file entry: the bot as it played, its options set to the
    tuned values, under the name ``BOT.tuned``."""
    spec = next(b for b in loaded.bots if b.name == bot)
    options: dict[str, str | int | float | bool] = dict(spec.options)
    options.update({p.name: v for p, v in zip(params, values, strict=True)})
    entry = msgspec.structs.replace(spec, name=side_name(bot, TUNED), options=options)
    text = (f"# {bot} tuned by `arena tune {loaded.path}`; name it in a config with\n"
            f"# bots_file = \"{out.tuned_bots}\" and [[bots]] use = \"{entry.name}\"\n"
            + msgspec.toml.encode({"bots": [msgspec.to_builtins(entry)]}).decode())
    return write_atomic(out.tuned_bots, text)

