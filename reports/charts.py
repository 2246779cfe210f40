"""The report's charts, drawn with matplotlib's Agg canvas straight to PNG files.

No pyplot: figures are plain :class:`matplotlib.figure.Figure` objects on an Agg canvas, so
building a report never touches a display, a global figure registry or an interactive backend
(the runner calls it from inside a tournament).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text

from arena.atomicfile import write_with
from arena.leaguedir.versions import bot_of, label_sort_key
from reports.rating_tables import SMALL_SAMPLE
from reports.tables import BotMoves

WIN, DRAW, LOSS = "#3a7d44", "#b0b7bf", "#c0392b"
FAULT_COLOURS = {
    "time-forfeit": "#e67e22",
    "illegal-move": "#8e44ad",
    "crash": "#c0392b",
    "stall": "#7f8c8d",
    "protocol-error": "#2c3e50",
}
DPI = 100
BOUND_COLOUR = "#b35900"


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, path: Path) -> Path:
    """Write the PNG with every text drawn on it (tick labels, legend entries, notes) in its
    ``Labels`` metadata, one per line: what a reader of the chart can see, checkable by tests."""
    for ax in fig.axes:  # tick labels are made on demand: make them now
        ax.get_xticklabels()
        ax.get_yticklabels()
    labels = [t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text()]
    metadata = {"Labels": "\n".join(labels)}
    _fix_layout(fig)
    return write_with(path, lambda tmp: fig.savefig(tmp, format="png", metadata=metadata))


def _fix_layout(fig: Figure) -> None:
    """Place the axes by the constrained layout once, then keep them there.

    With a layout engine set, ``savefig`` lays the figure out in a first, pixel-less draw and
    again in the real one: half the time of a chart. One layout gives the same positions."""
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)
        fig.set_layout_engine("none")


def chart_labels(path: Path) -> list[str]:
    """The texts :func:`_save` recorded in a chart (for tests and tools)."""
    from PIL import Image

    with Image.open(path) as image:
        return str(image.info.get("Labels", "")).split("\n")


def _empty(fig: Figure, text: str) -> None:
    ax = fig.add_subplot()
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center", color="#666")


def _bot_label(bot: str, games: int) -> str:
    """A bot's name on an axis, flagged when its sample is small."""
    flag = " *" if games < SMALL_SAMPLE else ""
    return f"{bot} ({games} g){flag}"


def elo_chart(standings: pd.DataFrame, path: Path) -> Path:
    """Every bot's Elo in standings order, best at the top: a point with its 95% error bar; a
    rating that is only a bound (a perfect or a zero score) as a one-sided arrow from the
    bound; an infinite error as arrows to both edges; an unrated bot as a note on its row."""
    bots = list(standings["bot"])
    fig = _figure(6.4, 1.2 + 0.38 * max(len(bots), 1))
    if "group" in standings and standings["group"].gt(0).any():
        _order_chart(fig, standings)
        return _save(fig, path)
    rated = standings.dropna(subset=["elo"])
    if rated.empty:
        _empty(fig, "no rated games yet")
        return _save(fig, path)
    ax = fig.add_subplot()
    y_of = {b: len(bots) - 1 - i for i, b in enumerate(bots)}
    finite_err = rated["elo_error"].replace([np.inf], np.nan)
    lo = float((rated["elo"] - finite_err.fillna(0)).min())
    hi = float((rated["elo"] + finite_err.fillna(0)).max())
    span = max(hi - lo, 100.0)
    left, right = lo - 0.25 * span, hi + 0.25 * span
    small = False
    for row in standings.itertuples(index=False):
        y = y_of[str(row.bot)]
        small |= int(row.games) < SMALL_SAMPLE
        elo, err, bound = float(row.elo), float(row.elo_error), str(row.bound)
        if np.isnan(elo):
            ax.text(0.5 * (left + right), y, "not rated: " + str(row.note or "no games"),
                    ha="center", va="center", color="#666", fontsize=8)
            continue
        if bound:
            end = right if bound == "lower" else left
            ax.annotate("", xy=(end, y), xytext=(elo, y),
                        arrowprops={"arrowstyle": "->", "color": BOUND_COLOUR, "lw": 1.5})
            ax.plot([elo], [y], marker="|", ms=14, mew=2, color=BOUND_COLOUR)
            sign = ">=" if bound == "lower" else "<="
            ax.text(elo, y + 0.28, f"{sign} {elo:.0f} ({bound} bound)", ha="center",
                    fontsize=7, color=BOUND_COLOUR)
        elif not np.isfinite(err):
            ax.annotate("", xy=(right, y), xytext=(left, y),
                        arrowprops={"arrowstyle": "<->", "color": "#7aa6cf"})
            ax.plot([elo], [y], "o", color="#1f5f99")
            ax.text(elo, y + 0.28, "error ∞", ha="center", fontsize=7, color="#1f5f99")
        else:
            ax.errorbar([elo], [y], xerr=[err], fmt="o", color="#1f5f99", ecolor="#7aa6cf",
                        capsize=3)
    ax.set_yticks([y_of[b] for b in bots],
                  [_bot_label(str(b), int(g)) for b, g in zip(bots, standings["games"],
                                                               strict=True)])
    ax.set_ylim(-0.7, len(bots) - 0.3)
    ax.set_xlim(left, right)
    ax.axvline(0, color="#999", lw=0.8)
    label = "Elo (95% error bars; arrows: the rating is only a bound)"
    if small:
        label += f"\n* fewer than {SMALL_SAMPLE} games: error bars are rough"
    ax.set_xlabel(label)
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


ORDER_NOTE = ("the results only order the bots: no finite rating exists across groups,\n"
              "so there are no error bars; a group of several is rated inside itself only")
"""What the Elo chart says under a chart of separated results (:mod:`ratings.separation`)."""


def _order_chart(fig: Figure, standings: pd.DataFrame) -> None:
    """The Elo chart when the results only order the bots: each bot a point at its group's
    place in the known order (best at the right, as ratings are), no error bars, its
    in-group rating written beside it when it has one, and the reason under the axis."""
    bots = list(standings["bot"])
    ax = fig.add_subplot()
    y_of = {b: len(bots) - 1 - i for i, b in enumerate(bots)}
    groups = int(standings["group"].max())
    small = False
    for row in standings.itertuples(index=False):
        y = y_of[str(row.bot)]
        small |= int(row.games) < SMALL_SAMPLE
        if int(row.group) == 0:
            ax.text(0.5 * (1 + groups), y, "not rated: " + str(row.note or "no games"),
                    ha="center", va="center", color="#666", fontsize=8)
            continue
        x = groups - int(row.group) + 1
        ax.plot([x], [y], "o", color=BOUND_COLOUR if row.order_only else "#1f5f99")
        label = (f"group {int(row.group)}: order only" if row.order_only
                 else f"group {int(row.group)}: {float(row.elo):+.0f} inside it")
        ax.text(x, y + 0.28, label, ha="center", fontsize=7, color="#444")
    ax.set_yticks([y_of[b] for b in bots],
                  [_bot_label(str(b), int(g)) for b, g in zip(bots, standings["games"],
                                                               strict=True)])
    ax.set_ylim(-0.7, len(bots) - 0.3)
    ax.set_xlim(0.3, groups + 0.7)
    ax.set_xticks(range(1, groups + 1), [str(groups - t + 1) for t in range(1, groups + 1)])
    label = "group in the known order (1 = best)\n" + ORDER_NOTE
    if small:
        label += f"\n* fewer than {SMALL_SAMPLE} games"
    ax.set_xlabel(label)
    ax.grid(axis="x", alpha=0.3)


def progression_chart(progress: pd.DataFrame, path: Path, order: list[str] | None = None) -> Path:
    """Elo of every bot refitted as games accumulate (columns: games, bot, elo, error, bound),
    with its 95% band; a rating that is only a bound is drawn dashed with triangles. The
    legend sits outside the plot, in ``order`` (the standings)."""
    fig = _figure(8.0, 4.0)
    ordered = progress[progress["bound"] == "order"]
    progress = progress[progress["bound"] != "order"]
    if progress.empty:
        _empty(fig, "no checkpoint puts the bots on one scale: the results only order them\n"
               "(see the Elo chart)" if len(ordered) else "not enough games yet")
        return _save(fig, path)
    ax = fig.add_subplot()
    present = list(dict.fromkeys(progress["bot"]))
    bots = [b for b in (order or present) if b in set(present)]
    bots += [b for b in present if b not in bots]
    colours = [f"C{i % 10}" for i in range(len(bots))]
    for bot, colour in zip(bots, colours, strict=True):
        part = progress[progress["bot"] == bot]
        est = part[part["bound"] == ""]
        if len(est):
            ax.plot(est["games"], est["elo"], marker=".", color=colour, label=str(bot))
        err = est["error"].to_numpy(dtype=float)
        if np.isfinite(err).any():
            ax.fill_between(est["games"], est["elo"] - err, est["elo"] + err, color=colour,
                            alpha=0.15, lw=0)
        for kind, marker in (("lower", "^"), ("upper", "v")):
            bounded = part[part["bound"] == kind]
            if len(bounded):
                ax.plot(bounded["games"], bounded["elo"], ls="--", marker=marker, ms=5,
                        color=colour, label=f"{bot} ({kind} bound)" if est.empty else None)
    first = int(progress["games"].min())
    xlabel = f"games played\n(first point: after game {first}, once every bot had played)"
    if len(ordered):
        checkpoints = ordered["games"].nunique()
        xlabel += (f"\n{checkpoints} checkpoint(s) not drawn: there the results only ordered "
                   "the bots (no common scale)")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("Elo (bands: 95%)")
    ax.grid(alpha=0.3)
    values = progress["elo"].to_numpy(dtype=float)
    lo, hi = float(np.nanmin(values)), float(np.nanmax(values))
    pad = max(0.1 * (hi - lo), 50.0)
    ax.set_ylim(lo - pad, hi + pad)
    handles, labels = ax.get_legend_handles_labels()
    if progress["bound"].ne("").any():
        handles.append(Line2D([], [], ls="--", marker="^", color="#666"))
        labels.append("dashed: a bound\n(perfect or zero score so far)")
    fig.legend(handles, labels, fontsize=8, loc="outside right upper")
    return _save(fig, path)


def crosstable_heatmap(points: pd.DataFrame, count: pd.DataFrame, path: Path) -> Path:
    """Score % of the row bot against the column bot."""
    n = len(points)
    fig = _figure(1.6 + 0.6 * max(n, 2), 1.2 + 0.5 * max(n, 2))
    if n == 0:
        _empty(fig, "no games yet")
        return _save(fig, path)
    with np.errstate(invalid="ignore", divide="ignore"):
        pct = 100.0 * points.to_numpy(dtype=float) / count.to_numpy(dtype=float)
    ax = fig.add_subplot()
    cmap = LinearSegmentedColormap.from_list("score", [LOSS, "#f4f4f4", WIN])
    image = ax.imshow(np.ma.masked_invalid(pct), cmap=cmap, vmin=0, vmax=100)
    labels = [str(b) for b in points.index]
    ax.set_xticks(range(n), labels, rotation=45, ha="right")
    ax.set_yticks(range(n), labels)
    if n <= 16:
        for i in range(n):
            for j in range(n):
                if np.isfinite(pct[i, j]):
                    ax.text(j, i, f"{pct[i, j]:.0f}", ha="center", va="center", fontsize=8)
    fig.colorbar(image, ax=ax, label="score % (row vs column)", shrink=0.8)
    return _save(fig, path)


def colour_chart(colours: pd.DataFrame, path: Path) -> Path:
    """p1 win / draw / p2 win shares per game type."""
    fig = _figure(5.6, 0.9 + 0.45 * max(len(colours), 1))
    if colours.empty:
        _empty(fig, "no finished games yet")
        return _save(fig, path)
    ax = fig.add_subplot()
    total = colours["games"].to_numpy(dtype=float)
    left = np.zeros(len(colours))
    y = np.arange(len(colours))[::-1]
    for column, colour in (("p1 wins", WIN), ("draws", DRAW), ("p2 wins", LOSS)):
        share = 100.0 * colours[column].to_numpy(dtype=float) / total
        ax.barh(y, share, left=left, color=colour, label=column)
        left += share
    ax.set_yticks(y, colours["game"])
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of games")
    fig.legend(ncols=3, fontsize=8, loc="outside lower center")
    return _save(fig, path)


def endings_chart(wdl: pd.DataFrame, faults: pd.DataFrame, path: Path) -> Path:
    """Per bot: wins, draws, ordinary losses, and losses by each kind of fault."""
    bots = list(wdl.index)
    fig = _figure(5.6, 0.9 + 0.35 * max(len(bots), 1))
    if not bots:
        _empty(fig, "no games yet")
        return _save(fig, path)
    ax = fig.add_subplot()
    y = np.arange(len(bots))[::-1]
    left = np.zeros(len(bots))
    fault_losses = faults["faults"].reindex(bots, fill_value=0).to_numpy(dtype=float)
    parts: list[tuple[str, np.ndarray, str]] = [
        ("wins", wdl["wins"].to_numpy(dtype=float), WIN),
        ("draws", wdl["draws"].to_numpy(dtype=float), DRAW),
        ("losses", wdl["losses"].to_numpy(dtype=float) - fault_losses, "#e8a29a"),
    ]
    for fault, colour in FAULT_COLOURS.items():
        parts.append((f"lost: {fault}", faults[fault].reindex(bots, fill_value=0)
                      .to_numpy(dtype=float), colour))
    for label, values, colour in parts:
        if values.sum() == 0 and label.startswith("lost:"):
            continue
        ax.barh(y, values, left=left, color=colour, label=label)
        left += values
    ax.set_yticks(y, bots)
    ax.set_xlabel("games")
    fig.legend(fontsize=8, ncols=3, loc="outside lower center")
    return _save(fig, path)


def length_histogram(games: pd.DataFrame, path: Path) -> Path:
    """Game length in plies, one histogram per game type."""
    fig = _figure(5.6, 3.2)
    if games.empty:
        _empty(fig, "no games yet")
        return _save(fig, path)
    ax = fig.add_subplot()
    plies = games["plies"].to_numpy()
    bins = np.histogram_bin_edges(plies, bins=min(40, max(5, int(np.sqrt(len(plies))))))
    for name, part in games.groupby("game", sort=True):
        ax.hist(part["plies"], bins=list(bins), alpha=0.6, label=str(name))
    ax.set_xlabel("plies")
    ax.set_ylabel("games")
    fig.legend(fontsize=8, loc="outside right upper")
    ax.grid(alpha=0.3)
    return _save(fig, path)


def _box(ax: Axes, data: list[np.ndarray], labels: list[str], missing: str = "") -> None:
    """Horizontal boxes (quartiles, median; whiskers at the 5th and 95th percentiles) from
    statistics computed here with numpy, so millions of samples cost one sort each. A row
    without data keeps its place and its name, followed by ``missing``."""
    stats, positions = [], []
    for k, (values, label) in enumerate(zip(data, labels, strict=True), start=1):
        if not len(values):
            continue
        p5, q1, med, q3, p95 = np.percentile(values, [5, 25, 50, 75, 95])
        stats.append({"label": label, "whislo": p5, "q1": q1, "med": med, "q3": q3,
                      "whishi": p95, "fliers": []})
        positions.append(k)
    if stats:
        ax.bxp(stats, positions=positions, orientation="horizontal", showfliers=False)
    ax.set_yticks(range(1, len(labels) + 1),
                  [lab if len(v) else f"{lab} {missing}" for v, lab in zip(data, labels,
                                                                            strict=True)])
    ax.set_ylim(0.5, len(labels) + 0.5)


def move_time_chart(by_bot: dict[str, BotMoves], path: Path) -> Path:
    """Time per move per bot (box: quartiles, whiskers: 5th-95th percentile)."""
    fig = _figure(5.6, 0.9 + 0.4 * max(len(by_bot), 1))
    if not any(len(mv.ms) for mv in by_bot.values()):
        _empty(fig, "no timed moves yet")
        return _save(fig, path)
    ax = fig.add_subplot()
    names = list(by_bot)[::-1]
    _box(ax, [by_bot[b].ms for b in names], names, "(no moves)")
    ax.set_xlabel("ms per move")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def search_chart(by_bot: dict[str, BotMoves], path: Path) -> Path | None:
    """Reported search depth and nodes per bot; None when no bot reports them."""
    depth = {b: mv.depth for b, mv in by_bot.items()}
    nodes = {b: mv.nodes[mv.nodes > 0] for b, mv in by_bot.items()}
    if not any(len(v) for v in depth.values()) and not any(len(v) for v in nodes.values()):
        return None
    fig = _figure(9, 0.9 + 0.4 * max(len(depth), len(nodes), 1))
    for k, (groups, label) in enumerate(((depth, "search depth"), (nodes, "nodes per move"))):
        ax = fig.add_subplot(1, 2, k + 1)
        if not any(len(v) for v in groups.values()):
            ax.axis("off")
            ax.text(0.5, 0.5, f"no {label} reported", ha="center", va="center", color="#666")
            continue
        names = list(groups)[::-1]
        _box(ax, [groups[b] for b in names], names, "(not reported)")
        if groups is nodes:
            ax.set_xscale("log")
        ax.set_xlabel(label)
        ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def sprt_chart(llr: pd.DataFrame, lower: float, upper: float, title: str, path: Path) -> Path:
    """The SPRT's log-likelihood ratio after each game, between its two decision bounds."""
    fig = _figure(6.4, 3.2)
    ax = fig.add_subplot()
    ax.axhline(upper, color=WIN, ls="--", label=f"accept H1 ({upper:.2f})")
    ax.axhline(lower, color=LOSS, ls="--", label=f"accept H0 ({lower:.2f})")
    ax.axhline(0, color="#999", lw=0.8)
    if len(llr):
        ax.plot(llr["games"], llr["llr"], color="#1f5f99", label="LLR")
    else:
        ax.text(0.5, 0.5, "no finished games yet", transform=ax.transAxes, ha="center",
                color="#666")
    ax.set_xlabel("games played")
    ax.set_ylabel("log-likelihood ratio")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    fig.legend(fontsize=8, loc="outside right upper")
    return _save(fig, path)


LEGEND_CAP = 24
"""Lines named in a league history chart's legend; past that, only the highlighted ones."""


def league_history_chart(
    nights: list[str],
    lines: dict[str, list[tuple[int, float, float]]],
    path: Path,
    highlight: list[str] | None = None,
) -> Path:
    """A league's ratings over its nights: one line per version (``lines``: version -> (night
    index, rating, 95% error) per snapshot that rated it), each with its shaded band. Versions
    of one bot share a colour (its latest version solid, earlier ones dashed), so a bot's
    progress reads as one hue.
    With many versions only ``highlight`` (the leaderboard's best) are named in the legend and
    given bands; the others are thin lines behind them."""
    fig = _figure(9.0, 4.6)
    if not lines or not nights:
        _empty(fig, "no closed night yet")
        return _save(fig, path)
    ax = fig.add_subplot()
    bots = sorted({bot_of(v) for v in lines})
    hue = {b: f"C{i % 10}" for i, b in enumerate(bots)}
    named = set(lines) if len(lines) <= LEGEND_CAP else set((highlight or [])[:LEGEND_CAP])
    latest = {}
    for version in sorted(lines, key=label_sort_key):
        latest[bot_of(version)] = version
    for version in sorted(lines, key=label_sort_key):
        points = np.array(lines[version], dtype=float).reshape(-1, 3)
        x, y, err = points[:, 0], points[:, 1], points[:, 2]
        bot = bot_of(version)
        colour = hue[bot]
        ax.plot(x, y, marker="." if len(x) < 40 else None, lw=1.4, color=colour,
                ls="-" if latest[bot] == version else "--",
                alpha=0.95 if version in named else 0.35,
                label=version if version in named else None)
        finite = np.isfinite(err) & (version in named)  # a crowded chart: bands of the named
        if len(x) == 1 and finite.all():  # one night: no band to shade, a bar instead
            ax.errorbar(x, y, yerr=err, color=colour, capsize=3, lw=1)
        elif finite.any():
            ax.fill_between(x[finite], (y - err)[finite], (y + err)[finite], color=colour,
                            alpha=0.10, lw=0)
    ticks = _night_ticks(len(nights))
    ax.set_xticks(ticks, [nights[i] for i in ticks], rotation=30, ha="right", fontsize=8)
    ax.set_xlim(-0.5, len(nights) - 0.5)
    ax.set_ylabel("rating (bands: 95%)")
    ax.set_xlabel("night")
    ax.grid(alpha=0.3)
    if named:
        fig.legend(fontsize=8, loc="outside right upper")
    return _save(fig, path)


def _night_ticks(n: int, most: int = 12) -> list[int]:
    """At most ``most`` evenly spaced night indices, the last night always among them."""
    if n <= most:
        return list(range(n))
    step = math.ceil(n / most)
    ticks = list(range(0, n, step))
    if ticks[-1] != n - 1:
        ticks[-1] = n - 1
    return ticks
