"""A tune's page (``report/tune.html``): where each option went, what it ended on, and the
proof.

Read from the run directory only: the tune log (:mod:`arena.rundir.tunelog`) for ``θ`` after
each iteration, the journal for the proof's colour pairs. Three things a person asks of a
tune, each answered once:

- did it settle? Each option's trajectory over the tuning games, in units of its ``c_end``
  from its start (so options of any scale share one chart), with the band ``θ ± c_k`` the
  iterations were played at;
- where did it end, and how sure is that? The tuned value, and the spread of ``θ`` over the
  last fifth of the iterations (SPSA's ``θ`` wanders around the optimum by about its steps:
  a spread as wide as the move from the start says the games could not tell);
- is it better? The proof's LLR over its games between its two bounds, and its verdict.

The games themselves are in the run's report (``report.html``), which this page links.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import numpy as np
import pandas as pd

from arena.atomicfile import write_atomic
from arena.rundir.journal import iter_records
from arena.rundir.layout import RunDir
from arena.rundir.tunelog import TuneLog, read_tune_log
from ratings.pairwise import Pentanomial
from ratings.sources import first_mover_points
from ratings.sprt import bounds, llr_pentanomial
from ratings.verdict import Verdict, VerdictSettings, parent_verdict
from reports.charts import sprt_chart, tune_chart
from reports.htmlkit import (
    Html,
    asset,
    document,
    element,
    escape,
    hint,
    image,
    link,
    number,
    section,
    table,
)

GAMMA: Final = 0.101
"""SPSA's perturbation decay (:data:`arena.tune.spsa.GAMMA`, which the report cannot import:
it sits below the driving floors)."""
SETTLED_SHARE: Final = 0.2
"""The last fifth of the iterations: the spread of ``θ`` there is the tuned value's
uncertainty."""
TRAJECTORY_PNG: Final = "tune-trajectory.png"
PROOF_PNG: Final = "tune-proof.png"


def proof_llr(out: RunDir, settings: VerdictSettings) -> tuple[pd.DataFrame, Verdict | None]:
    """The proof's LLR after each colour pair (its games so far) and its verdict, from the
    journal: pairs ``pNNNNN``, the tuned side first in ``-g1``."""
    points: dict[str, float] = {}
    rows: list[tuple[int, float]] = []
    total = Pentanomial()
    counted: list[Pentanomial] = []
    for record in iter_records(out.journal) if out.journal.is_file() else ():
        if not record.id.startswith("p"):
            continue
        try:
            score = first_mover_points(record.result)
        except ValueError:
            continue
        if score is None:
            continue
        points[record.id] = score
        key = record.id.split("-", 1)[0]
        first, second = points.get(f"{key}-g1"), points.get(f"{key}-g2")
        if first is None or second is None:
            continue
        total = total.add(first, 1.0 - second)
        counted.append(Pentanomial().add(first, 1.0 - second))
        rows.append((2 * total.pairs, llr_pentanomial(total, settings.elo0, settings.elo1,
                                                      settings.elo_model)))
    verdict = parent_verdict(counted, settings) if counted else None
    return pd.DataFrame(rows, columns=["games", "llr"]), verdict


def trajectory_chart(log: TuneLog, path: Path) -> Path:
    """Each option's ``(θ - start) / c_end`` over the tuning games, with the band ``± c_k``."""
    began = log.began
    assert began is not None
    games = np.array([u.games for u in log.updated], dtype=float)
    ks = np.array([u.k for u in log.updated], dtype=float)
    theta = np.array([u.theta for u in log.updated], dtype=float).reshape(len(ks), -1)
    band = (began.iterations / ks) ** GAMMA  # c_k / c_end
    scaled = {name: (theta[:, i] - began.start[i]) / began.c[i]
              for i, name in enumerate(began.options)} if len(ks) else {}
    return tune_chart(games, scaled, band, path)


def settled(log: TuneLog) -> list[tuple[float, float]]:
    """Each option's mean and spread (standard deviation) over the last fifth of the
    iterations."""
    assert log.began is not None
    if not log.updated:
        return [(s, float("nan")) for s in log.began.start]
    tail = max(1, int(round(SETTLED_SHARE * len(log.updated))))
    theta = np.array([u.theta for u in log.updated[-tail:]], dtype=float)
    spread = theta.std(axis=0, ddof=1) if tail > 1 else np.full(theta.shape[1], np.nan)
    return [(float(m), float(s)) for m, s in zip(theta.mean(axis=0), spread, strict=True)]


def build_tune_page(run_dir: Path) -> Path:
    """Write ``report/tune.html`` of a tune's run directory; returns its path."""
    out = RunDir(Path(run_dir))
    log = read_tune_log(out.tune_log)
    began = log.began
    if began is None:
        raise ValueError(f"{out.tune_log}: not a tune's run directory (no tune log)")
    out.report_dir.mkdir(exist_ok=True)
    elo0, elo1, alpha, beta = (began.proof or [0.0, 10.0, 0.05, 0.05])[:4]
    settings = VerdictSettings(elo0, elo1, alpha, beta)
    trajectory_chart(log, out.report_dir / TRAJECTORY_PNG)
    llr, verdict = proof_llr(out, settings)
    lower, upper = bounds(alpha, beta)
    sprt_chart(llr, lower, upper, f"{began.bot}.tuned against {began.bot}.start: "
               f"H0 {elo0:g}, H1 {elo1:g} Elo", out.report_dir / PROOF_PNG)
    theta = log.updated[-1].theta if log.updated else began.start
    tuned = log.tuned.values if log.tuned is not None else None
    rows = [
        [escape(name), number(start, "g"), number(now, ".1f"),
         escape(tuned[i]) if tuned is not None else "",
         number(mean, ".1f"), number(spread, ".1f"), number(c, "g")]
        for i, (name, start, now, (mean, spread), c) in enumerate(zip(
            began.options, began.start, theta, settled(log), began.c, strict=True))
    ]
    status = (f"tuning: {len(log.updated)} of {began.iterations} iterations"
              if log.tuned is None else
              f"tuned over {log.tuned.iterations} of {began.iterations} iterations")
    said = verdict.describe() if verdict is not None else "no proof pair finished yet"
    body = element(
        "main",
        element("h1", f"Tune of {began.bot}"),
        hint(f"{status}; seed {began.seed}. The games, the standings of the four sides and "
             "the game viewer are in ", link("../report.html", "the run's report"), "."),
        section("values", "Values",
                table(["option", "start", "θ now", "tuned (sent)", "mean of the last fifth",
                       "spread (sd)", "c"], rows),
                hint("θ wanders around the optimum by about its steps: a spread as wide as "
                     "the move from the start says the games could not tell the values "
                     "apart.")),
        section("trajectory", "Trajectories",
                image(TRAJECTORY_PNG, "each option's value over the tuning games"),
                hint("Each option's distance from its start in units of its c, with the band "
                     "± c_k its iterations were played at.")),
        section("proof", "Proof",
                element("p", f"{began.bot}.tuned against {began.bot}.start: ",
                        element("strong", said, id="verdict")),
                image(PROOF_PNG, "the proof's log-likelihood ratio over its games")),
    )
    ready = Html('<script>document.body.setAttribute("data-ready", "1");</script>')
    page = document(f"Tune of {began.bot}", Html(body + ready),
                    head=Html(f"\n<style>{asset('report.css')}</style>"))
    return write_atomic(out.tune_page, page)
