"""The schedule: which games a tournament plays, in which order, with which colours and openings,
and the order (:class:`~referee.order.GameOrder`) each scheduled game is played from.

The schedule is a pure function of the config (bots, format, rounds, games per pairing,
openings, seed): the same config always gives the same games with the same stable ids
(``r1-p03-g2`` = round 1, pairing 3, game 2 of that pairing in that round). That is what lets a
stopped tournament resume by playing only the ids missing from its journal, and what the
fingerprint stored next to the journal protects.

Games of a pairing come in pairs that share one opening with colours swapped, so that neither
the opening nor the first move favours a bot. A book's openings are used in its order, or
shuffled by the seed (``[openings] order = "random"``), each once before any is used again.
Order: round by round, then pair by pair across all pairings, so that a tournament stopped
half-way is still balanced.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Final

import msgspec

from arena.config import LoadedConfig
from arena.errors import UserError
from arena.openings import Opening
from arena.openings.book import ordered, read_book
from referee.games import get_game
from referee.order import GameOrder

RANDOM_OPENING_ATTEMPTS: Final = 200
"""How often a random opening is redrawn before giving up on avoiding finished positions."""


class ScheduledGame(msgspec.Struct, frozen=True):
    """One game to play; ``p1`` moves first."""

    id: str
    round: int
    pairing: int
    """1-based index of the pairing (pair of bots) in the tournament."""
    game_no: int
    """1-based number of this game within its pairing and round."""
    p1: str
    p2: str
    opening: Opening
    pair: str = ""
    """The colour pair this game belongs to (``r1-p03-k1``): two games, one opening, colours
    swapped. Ratings use it to treat the pair as one unit (pentanomial statistics)."""
    opening_index: int | None = None
    """Index in the openings file (0-based), None for the start position or random openings."""


class Schedule(msgspec.Struct, frozen=True):
    games: tuple[ScheduledGame, ...]
    fingerprint: str
    """Hash of everything that decides which games exist and what they mean."""

    @property
    def total(self) -> int:
        return len(self.games)

    def ids(self) -> list[str]:
        return [g.id for g in self.games]


def pairings(bot_names: Sequence[str], format: str) -> list[tuple[str, str]]:
    """Round-robin: every pair once, in bot order. Gauntlet: the first bot against each other."""
    if format == "gauntlet":
        return [(bot_names[0], other) for other in bot_names[1:]]
    return [
        (bot_names[i], bot_names[j])
        for i in range(len(bot_names))
        for j in range(i + 1, len(bot_names))
    ]


def book_openings(loaded: LoadedConfig) -> list[Opening]:
    """The openings of the config's book, in file order, checked with the rules (none
    without a book)."""
    if loaded.openings_file is None or loaded.config.openings is None:
        return []
    book = loaded.config.openings
    return read_book(loaded.openings_file, loaded.config.game, loaded.game_options,
                     fmt=book.format, plies=book.plies)


def random_opening(game: str, plies: int, rng: random.Random, options: dict[str, str]) -> Opening:
    """``plies`` random legal moves from the start that never reach a finished position.

    Each ply picks among the moves that keep the game going; a dead end restarts the draw.
    """
    rules = get_game(game)
    for _ in range(RANDOM_OPENING_ATTEMPTS):
        position = rules.start(**options)
        played: list[str] = []
        while len(played) < plies:
            choices = position.legal_moves()
            rng.shuffle(choices)
            for move in choices:
                position.play(move)
                if not position.is_over():
                    played.append(move)
                    break
                position.pop()
            else:
                break  # every move ends the game: redraw
        if len(played) == plies:
            return Opening(moves=tuple(played), source=f"random: {' '.join(played)}")
    raise UserError(
        f"could not find a random {game} opening of {plies} plies that keeps the game going; "
        "lower [openings] random_plies"
    )


def build_schedule(loaded: LoadedConfig) -> Schedule:
    """The full, deterministic schedule of a checked config."""
    config = loaded.config
    names = [bot.name for bot in loaded.bots]
    pairs = pairings(names, config.format)
    options = loaded.game_options
    file_openings = book_openings(loaded)
    sequence = ordered(len(file_openings), config.openings.order if config.openings else None,
                       config.seed)
    plies = config.openings.random_plies if config.openings else None
    width = max(2, len(str(len(pairs))))
    games: list[ScheduledGame] = []
    pairs_per_pairing = config.games_per_pairing // 2
    opening_counter = 0
    for rnd in range(1, config.rounds + 1):
        for k in range(pairs_per_pairing):
            for p, (a, b) in enumerate(pairs, start=1):
                opening_index: int | None = None
                if file_openings:
                    opening_index = sequence[opening_counter % len(file_openings)]
                    opening = file_openings[opening_index]
                    opening_counter += 1
                elif plies:
                    rng = random.Random(f"{config.seed}:{rnd}:{p}:{k}")
                    opening = random_opening(config.game, plies, rng, options)
                else:
                    opening = Opening()
                for swap in (0, 1):
                    g = 2 * k + swap + 1
                    p1, p2 = (a, b) if swap == 0 else (b, a)
                    games.append(
                        ScheduledGame(
                            id=f"r{rnd}-p{p:0{width}d}-g{g}",
                            round=rnd,
                            pairing=p,
                            game_no=g,
                            p1=p1,
                            p2=p2,
                            opening=opening,
                            pair=f"r{rnd}-p{p:0{width}d}-k{k + 1}",
                            opening_index=opening_index,
                        )
                    )
    return Schedule(games=tuple(games), fingerprint=fingerprint(loaded, games))


def order_for(loaded: LoadedConfig, game: ScheduledGame) -> GameOrder:
    """The order for one scheduled game, built once: the runner plays it here or sends it as
    it is to a cluster worker. Its tags (pairing, colour pair, the opening's source) go on the
    game's record."""
    config = loaded.config
    bots = {bot.name: bot for bot in loaded.bots}
    tags = {"pairing": str(game.pairing), "pair": game.pair}
    if game.opening.source:
        tags["opening"] = game.opening.source
    return GameOrder.checked(
        config.game, bots[game.p1], bots[game.p2],
        tc=(loaded.time_controls[game.p1], loaded.time_controls[game.p2]),
        start_position=game.opening.start_position or None, opening=game.opening.moves,
        adjudication=config.adjudication, game_options=loaded.game_options,
        id=game.id, round=game.round, tags=tags,
    )


def fingerprint(loaded: LoadedConfig, games: Sequence[ScheduledGame]) -> str:
    """Hash of the game, its options and every scheduled game (id, colours, opening).

    Time controls, commands and concurrency are deliberately left out: changing them does not
    change which games exist, so a resumed run may use them (the runner warns).
    """
    payload = msgspec.json.encode(
        {
            "game": loaded.config.game,
            "options": loaded.game_options,
            "games": [[g.id, g.p1, g.p2, g.opening.start_position, g.opening.moves] for g in games],
        }
    )
    return hashlib.sha256(payload).hexdigest()[:16]
