"""The report's charts, drawn with matplotlib's Agg canvas straight to PNG files.

No pyplot: figures are plain :class:`matplotlib.figure.Figure` objects on an Agg canvas, so
building a report never touches a display, a global figure registry or an interactive backend
(the runner calls it from inside a tournament).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure

from reports.files import write_with
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


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, path: Path) -> Path:
    return write_with(path, lambda tmp: fig.savefig(tmp, format="png"))


def _empty(fig: Figure, text: str) -> None:
    ax = fig.add_subplot()
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center", color="#666")


def elo_chart(standings: pd.DataFrame, path: Path) -> Path:
    """Elo with its error bar per bot, best at the top."""
    rated = standings.dropna(subset=["elo"])
    fig = _figure(5.6, 0.9 + 0.35 * max(len(rated), 1))
    if rated.empty:
        _empty(fig, "no rated games yet")
        return _save(fig, path)
    ax = fig.add_subplot()
    y = np.arange(len(rated))[::-1]
    err = rated["elo_error"].fillna(0).to_numpy()
    ax.errorbar(rated["elo"], y, xerr=err, fmt="o", color="#1f5f99", ecolor="#7aa6cf",
                capsize=3)
    ax.set_yticks(y, rated["bot"])
    ax.axvline(0, color="#999", lw=0.8)
    ax.set_xlabel("Elo (95% error bars)")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def progression_chart(progress: pd.DataFrame, path: Path) -> Path:
    """Elo of every bot refitted as games accumulate (columns: games, bot, elo)."""
    fig = _figure(5.6, 3.6)
    if progress.empty:
        _empty(fig, "not enough games yet")
        return _save(fig, path)
    ax = fig.add_subplot()
    for bot, part in progress.groupby("bot", sort=False):
        ax.plot(part["games"], part["elo"], marker=".", label=str(bot))
    ax.set_xlabel("games played")
    ax.set_ylabel("Elo")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncols=2 if progress["bot"].nunique() > 6 else 1, loc="best")
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
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return _save(fig, path)


def _box(ax: Axes, data: list[np.ndarray], labels: list[str]) -> None:
    """Horizontal boxes (quartiles, median; whiskers at the 5th and 95th percentiles) from
    statistics computed here with numpy, so millions of samples cost one sort each."""
    stats = []
    for values, label in zip(data, labels, strict=True):
        p5, q1, med, q3, p95 = np.percentile(values, [5, 25, 50, 75, 95])
        stats.append({"label": label, "whislo": p5, "q1": q1, "med": med, "q3": q3,
                      "whishi": p95, "fliers": []})
    ax.bxp(stats, orientation="horizontal", showfliers=False)


def move_time_chart(by_bot: dict[str, BotMoves], path: Path) -> Path:
    """Time per move per bot (box: quartiles, whiskers: 5th-95th percentile)."""
    fig = _figure(5.6, 0.9 + 0.4 * max(len(by_bot), 1))
    present = [b for b, mv in by_bot.items() if len(mv.ms)]
    if not present:
        _empty(fig, "no timed moves yet")
        return _save(fig, path)
    ax = fig.add_subplot()
    _box(ax, [by_bot[b].ms for b in present][::-1], present[::-1])
    ax.set_xlabel("ms per move")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def search_chart(by_bot: dict[str, BotMoves], path: Path) -> Path | None:
    """Reported search depth and nodes per bot; None when no bot reports them."""
    depth = {b: mv.depth for b, mv in by_bot.items() if len(mv.depth)}
    nodes = {b: mv.nodes[mv.nodes > 0] for b, mv in by_bot.items()}
    nodes = {b: v for b, v in nodes.items() if len(v)}
    if not depth and not nodes:
        return None
    fig = _figure(9, 0.9 + 0.4 * max(len(depth), len(nodes), 1))
    for k, (groups, label) in enumerate(((depth, "search depth"), (nodes, "nodes per move"))):
        ax = fig.add_subplot(1, 2, k + 1)
        if not groups:
            ax.axis("off")
            ax.text(0.5, 0.5, f"no {label} reported", ha="center", va="center", color="#666")
            continue
        names = list(groups)[::-1]
        _box(ax, [groups[b] for b in names], names)
        if groups is nodes:
            ax.set_xscale("log")
        ax.set_xlabel(label)
        ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)
