"""Our fit against Ordo 1.2.6 on the shared round-robin fixture (tests/data/ratings/README.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.cli import main
from arena.rundir.results import read_results
from ratings import aggregate, fit_ratings

DATA = Path(__file__).parent / "data" / "ratings"
PGN = DATA / "roundrobin.pgn"
ORDO = DATA / "roundrobin.ordo.txt"


def parse_ordo(text: str) -> tuple[dict[str, tuple[float, float, float, int]], dict[str, float]]:
    """Ordo's table: name -> (rating, error, points, played); plus the two summary lines."""
    rows: dict[str, tuple[float, float, float, int]] = {}
    row = re.compile(r"^\s*\d+\s+(\S.*?)\s+:\s+(-?[\d.]+)\s+([\d.]+|----)\s+([\d.]+)\s+(\d+)\s+\d+")
    for line in text.splitlines():
        m = row.match(line)
        if m:
            err = float("nan") if m.group(3) == "----" else float(m.group(3))
            rows[m.group(1)] = (float(m.group(2)), err, float(m.group(4)), int(m.group(5)))
    summary = {}
    wa = re.search(r"White advantage = (-?[\d.]+) \+/- ([\d.]+)", text)
    dr = re.search(r"Draw rate \(equal opponents\) = ([\d.]+) % \+/- ([\d.]+)", text)
    assert wa and dr, "summary lines missing"
    summary = {
        "wa": float(wa.group(1)),
        "wa_sd": float(wa.group(2)),
        "dr": float(dr.group(1)),
        "dr_sd": float(dr.group(2)),
    }
    return rows, summary


@pytest.fixture(scope="module")
def ordo() -> tuple[dict[str, tuple[float, float, float, int]], dict[str, float]]:
    rows, summary = parse_ordo(ORDO.read_text())
    assert len(rows) == 8
    return rows, summary


@pytest.fixture(scope="module")
def counts():  # type: ignore[no-untyped-def]
    games = read_results(PGN)
    assert len(games) == 1120
    return aggregate(games)


@pytest.mark.parametrize("errors", ["hessian", "simulation"])
def test_fit_matches_ordo(ordo, counts, errors: str) -> None:  # type: ignore[no-untyped-def]
    rows, summary = ordo
    fit = fit_ratings(counts, errors=errors, seed=1)  # type: ignore[arg-type]
    worst = 0.0
    for name, (rating, error, points, played) in rows.items():
        i = fit.index(name)
        worst = max(worst, abs(fit.ratings[i] - rating))
        assert fit.ratings[i] == pytest.approx(rating, abs=1.0), name
        assert fit.points[i] == points and fit.played[i] == played
        assert fit.errors[i] / error == pytest.approx(1.0, abs=0.15), (name, fit.errors[i], error)
    assert worst < 0.1  # in practice we agree to Ordo's printed precision
    assert abs(sum(fit.ratings)) < 1e-6  # -a 0: pool average 0
    assert fit.white_advantage == pytest.approx(summary["wa"], abs=1.0)
    # Ordo prints one standard deviation after the advantage and the draw rate.
    assert fit.white_advantage_sd / summary["wa_sd"] == pytest.approx(1.0, abs=0.15)
    assert 100 * fit.draw_rate == pytest.approx(summary["dr"], abs=0.2)
    assert 100 * fit.draw_rate_sd / summary["dr_sd"] == pytest.approx(1.0, abs=0.15)
    # The ranking is Ordo's.
    assert [fit.players[i] for i in fit.order()] == list(rows)


def test_cli_table_reads_like_ordo(ordo, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    rows, summary = ordo
    assert main(["ratings", str(PGN), "--prior", "off"]) == 0
    out = capsys.readouterr().out
    ours, our_summary = parse_ordo(out)
    header = "   # PLAYER          :  RATING  ERROR  POINTS  PLAYED   (%)"
    ordo_header = next(line for line in ORDO.read_text().splitlines() if line.strip())
    assert out.splitlines()[0] == header == ordo_header
    assert list(ours) == list(rows)
    for name in rows:
        assert ours[name][0] == pytest.approx(rows[name][0], abs=0.15)
        assert ours[name][2:] == rows[name][2:]
    assert our_summary["wa"] == pytest.approx(summary["wa"], abs=0.05)


def test_cli_default_is_bayesian_near_ordo(ordo, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    """280 games a player: the default prior moves no rating by more than 2.5 points (1% of
    the largest) from Ordo's, and says it is there."""
    rows, _ = ordo
    assert main(["ratings", str(PGN)]) == 0
    out = capsys.readouterr().out
    ours, _ = parse_ordo(out)
    assert list(ours) == list(rows)
    for name in rows:
        assert ours[name][0] == pytest.approx(rows[name][0], abs=2.5)
        assert ours[name][1] / rows[name][1] == pytest.approx(1.0, abs=0.15)
    assert "Note: Gaussian prior: every rating sd 400 points around the pool" in out


def test_cli_csv_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ratings", str(PGN), "--csv", "--scale", "elo"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "player,rating,error,points,played,group"
    assert len(lines) == 9 and lines[1].startswith("alphabeta-d4,")
    assert main(["ratings", str(PGN), "--json", "--anchor", "random=1000"]) == 0
    doc = json.loads(capsys.readouterr().out)
    by_name = {p["player"]: p for p in doc["players"]}
    assert by_name["random"]["rating"] == 1000.0  # exact: the anchor is set, not reached
    assert by_name["random"]["error"] == 0.0
    assert doc["los"]["alphabeta-d4"]["random"] > 0.999
    assert doc["white_advantage"]["fitted"] is True
    assert len(doc["pairwise"]) == 28
    assert {p["games"] for p in doc["pairwise"]} == {40}


def test_elo_scale_is_narrower_than_ordo_scale(counts) -> None:  # type: ignore[no-untyped-def]
    ordo_fit = fit_ratings(counts, scale="ordo", errors="none")
    elo_fit = fit_ratings(counts, scale="elo", errors="none")
    ratio = elo_fit.ratings / ordo_fit.ratings
    # 202 points = 76% on Ordo's scale vs 400*log10: the Ordo scale is ~0.9% wider.
    assert ratio == pytest.approx([0.99127] * 8, abs=1e-4)


def test_no_white_advantage(counts) -> None:  # type: ignore[no-untyped-def]
    fit = fit_ratings(counts, white_advantage=False, errors="none")
    assert fit.white_advantage == 0.0 and not fit.white_advantage_fitted
    # Balanced colours: ratings barely move when the advantage is not fitted.
    assert max(abs(fit.ratings - fit_ratings(counts, errors="none").ratings)) < 2.0


def test_cli_bad_anchor(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ratings", str(PGN), "--anchor", "nobody=10"]) == 2
    assert "nobody" in capsys.readouterr().err
    assert main(["ratings", str(PGN), "--anchor", "random"]) == 2
    assert "NAME=ELO" in capsys.readouterr().err
