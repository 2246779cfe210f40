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

A knockout or a Swiss tournament cannot be listed whole in advance: each round's pairings
follow the results of the rounds before it (:mod:`arena.formats.meetings`). Its schedule is then a
pure function of the config *and the results so far*: :func:`build_schedule` given the journal's
results lists every round they decide, up to the first round not finished, and says whether
that is all (:attr:`Schedule.final`). The same journal always gives the same games and ids, so
resume works as for a round-robin; :class:`RoundFeed` hands a run each round's games once the
round before it is complete.
"""

from __future__ import annotations

import functools
import hashlib
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Final

import msgspec

from arena.errors import UserError
from arena.formats.meetings import Progression, Results
from arena.openings import Opening
from arena.openings.book import Book, open_book, ordered
from arena.settings.config import ROUNDS_FORMATS, Config, LoadedConfig
from referee.games import get_game
from referee.order import GameOrder
from referee.record import P1_POINTS, GameRecord

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
    final: bool = True
    """False while later rounds wait for results (knockout, Swiss): ``games`` holds the rounds
    the results decide so far."""
    expected: int = 0
    """Games of the whole tournament as far as can be told (knockout, Swiss), else 0."""

    @property
    def total(self) -> int:
        """Games in the tournament: all of them, or (rounds still to come) those expected."""
        return len(self.games) if self.final else max(len(self.games), self.expected)

    def ids(self) -> list[str]:
        return [g.id for g in self.games]


def pairings(bot_names: Sequence[str], format: str) -> list[tuple[str, str]]:
    """Round-robin: every pair once, in bot order. Gauntlet: the first bot against each other.
    Pyramid: the pairs of a round-robin, each bot in turn against every bot above it."""
    if format == "gauntlet":
        return [(bot_names[0], other) for other in bot_names[1:]]
    if format == "pyramid":
        return [(bot_names[i], bot_names[j])
                for j in range(1, len(bot_names)) for i in range(j)]
    return [
        (bot_names[i], bot_names[j])
        for i in range(len(bot_names))
        for j in range(i + 1, len(bot_names))
    ]


def config_book(loaded: LoadedConfig) -> Book | None:
    """The config's book, read and parsed, its openings checked as they are drawn (None
    without a book)."""
    if loaded.openings_file is None or loaded.config.openings is None:
        return None
    book = loaded.config.openings
    return open_book(loaded.openings_file, loaded.config.game, loaded.game_options,
                     fmt=book.format, plies=book.plies)


def book_openings(loaded: LoadedConfig) -> list[Opening]:
    """Every opening of the config's book, in file order, checked with the rules (none
    without a book): for the schedules that draw openings as results come in (knockout and
    Swiss rounds, a league night, a tuning), which must know all of them good before their
    first game rather than stop half-way."""
    book = config_book(loaded)
    return [] if book is None else book.openings()


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


def progression(config: Config, results: Results) -> Progression:
    """The rounds of a knockout or Swiss config that ``results`` decide (seeded by
    :meth:`~arena.settings.config.Config.seeding`)."""
    from arena.formats.knockout import knockout
    from arena.formats.swiss import swiss

    names = config.seeding()
    if config.format == "knockout":
        return knockout(names, config.games_per_pairing, config.tiebreak_pairs, results)
    if config.format == "swiss":
        return swiss(names, config.rounds, config.games_per_pairing, config.bye_points, results)
    raise ValueError(f"format {config.format!r} has no rounds that follow the results")


def result_of(record: GameRecord) -> float | None:
    """The first mover's points in a journaled game, None for an unfinished one (read from
    the record's own table: the ratings package, and numpy with it, is not loaded to play)."""
    return P1_POINTS.get(record.result)


def results_of(records: Iterator[GameRecord] | Sequence[GameRecord]) -> dict[str, float]:
    """Game id -> first mover's points, for :func:`build_schedule`."""
    out: dict[str, float] = {}
    for record in records:
        score = result_of(record)
        if score is not None:
            out[record.id] = score
    return out


def build_schedule(loaded: LoadedConfig, results: Results | None = None) -> Schedule:
    """The deterministic schedule of a checked config: every game of a round-robin, gauntlet
    or pyramid; the rounds ``results`` decide of a knockout or Swiss tournament.

    A round-robin's, gauntlet's or pyramid's games are all known here, so the book's
    openings they draw are checked with the rules here, in the order the games use them, and
    only those, before the first game: the whole file is still read and parsed, but an
    opening no game draws is not played through (a bad one there stops no run, as it would
    spoil none of its games; a run long enough to draw it refuses to start). A round-based
    format checks the whole book (:func:`book_openings`)."""
    config = loaded.config
    if config.format in ROUNDS_FORMATS:
        return _rounds_schedule(loaded, results or {})
    names = [bot.name for bot in loaded.bots]
    pairs = pairings(names, config.format)
    options = loaded.game_options
    book = config_book(loaded)
    count = 0 if book is None else len(book)
    sequence = ordered(count, config.openings.order if config.openings else None, config.seed)
    plies = config.openings.random_plies if config.openings else None
    width = max(2, len(str(len(pairs))))
    games: list[ScheduledGame] = []
    pairs_per_pairing = config.games_per_pairing // 2
    opening_counter = 0
    for rnd in range(1, config.rounds + 1):
        for k in range(pairs_per_pairing):
            for p, (a, b) in enumerate(pairs, start=1):
                opening_index: int | None = None
                if book is not None:
                    opening_index = sequence[opening_counter % count]
                    opening = book.opening(opening_index)  # checked here, on first draw
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


def _rounds_schedule(loaded: LoadedConfig, results: Results) -> Schedule:
    """The games of the rounds decided so far. Openings: the pairings' own colour pairs take
    the file's openings in turn, round by round (a round's size does not depend on results);
    a knockout's tie-break pairs draw theirs from the seed and their id."""
    config = loaded.config
    options = loaded.game_options
    file_openings = book_openings(loaded)
    sequence = ordered(len(file_openings), config.openings.order if config.openings else None,
                       config.seed)
    plies = config.openings.random_plies if config.openings else None
    base_pairs = config.games_per_pairing // 2
    state = progression(config, results)
    games: list[ScheduledGame] = []
    counter = 0
    for rnd in state.rounds:
        for meeting in rnd.meetings:
            for k in range(1, meeting.games // 2 + 1):
                pair = meeting.pair_id(2 * k)
                opening_index: int | None = None
                if file_openings:
                    if k <= base_pairs:
                        slot = counter + (meeting.pairing - 1) * base_pairs + k - 1
                    else:
                        slot = random.Random(f"{config.seed}:{pair}").randrange(1 << 30)
                    opening_index = sequence[slot % len(file_openings)]
                    opening = file_openings[opening_index]
                elif plies:
                    opening = _seeded_opening(config.game, plies, f"{config.seed}:{pair}",
                                              tuple(sorted(options.items())))
                else:
                    opening = Opening()
                for number in (2 * k - 1, 2 * k):
                    p1, p2 = meeting.players_of(number)
                    games.append(ScheduledGame(
                        id=meeting.game_id(number), round=rnd.number, pairing=meeting.pairing,
                        game_no=number, p1=p1, p2=p2, opening=opening, pair=pair,
                        opening_index=opening_index))
        counter += len(rnd.meetings) * base_pairs
    identity = {
        "format": config.format, "players": config.seeding(),
        "rounds": config.rounds, "games_per_pairing": config.games_per_pairing,
        "tiebreak_pairs": config.tiebreak_pairs, "bye_points": config.bye_points,
        "seed": config.seed if plies or file_openings else None, "random_plies": plies,
        "openings": [[o.start_position, o.moves] for o in file_openings],
    }
    known = [g for g in games if g.round == 1 and g.game_no <= config.games_per_pairing]
    return Schedule(games=tuple(games), fingerprint=fingerprint(loaded, known, identity),
                    final=state.final, expected=state.expected_games)


@functools.lru_cache(maxsize=4096)
def _seeded_opening(game: str, plies: int, seed: str,
                    options: tuple[tuple[str, str], ...]) -> Opening:
    """A random opening drawn from ``seed``, kept: a round-based schedule is rebuilt as the
    results come in, and its openings must not be drawn (played out) again each time."""
    return random_opening(game, plies, random.Random(seed), dict(options))


ROUND_STUCK: Final = "the next round waits for games that failed; run again to play them"
"""Why scheduling stops when a knockout's or Swiss round waits for results that no running
game will bring (a :class:`RoundFeed` yields ``None`` and no game is out)."""


class RoundFeed:
    """A knockout's or Swiss tournament's games for the runner
    (:class:`arena.run.runner.Tournament`), round by round: the known games missing from the
    journal, then ``None`` (nothing to hand out until a running game finishes) until the
    results of the round decide the next one. :meth:`record` hears of each journaled game."""

    def __init__(self, loaded: LoadedConfig, results: Mapping[str, float]) -> None:
        self.loaded = loaded
        self.results: dict[str, float] = dict(results)
        self.schedule = build_schedule(loaded, self.results)

    def record(self, record: GameRecord) -> None:
        score = result_of(record)
        if score is not None:
            self.results[record.id] = score

    def _may_change(self) -> bool:
        """Can the results so far add games? A Swiss round only once all its games are in
        (its pairing search is the costly part, and runs with no game in flight); a knockout
        match as soon as it is tied, so its schedule is rebuilt after every game (cheap:
        no search, and the openings are cached)."""
        if self.loaded.config.format == "knockout":
            return True
        return all(g.id in self.results for g in self.schedule.games)

    def finished_bots(self) -> set[str]:
        """Bots that will play no more games: a knockout's losers of the rounds decided (their
        processes can end); none in a Swiss tournament, where everyone plays every round."""
        if self.loaded.config.format != "knockout":
            return set()
        out: set[str] = set()
        for rnd in progression(self.loaded.config, self.results).rounds:
            if rnd.winners:
                out |= {p for m in rnd.meetings for p in (m.first, m.second)} - set(rnd.winners)
        return out

    def __iter__(self) -> Iterator[ScheduledGame | None]:
        handed: set[str] = set()
        while True:
            if self._may_change():
                self.schedule = build_schedule(self.loaded, self.results)
            new = [g for g in self.schedule.games
                   if g.id not in self.results and g.id not in handed]
            if new:
                handed.update(g.id for g in new)
                yield from new
            elif self.schedule.final:
                return
            else:
                yield None


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


def fingerprint(loaded: LoadedConfig, games: Sequence[ScheduledGame],
                identity: Mapping[str, object] | None = None) -> str:
    """Hash of the game, its options and every scheduled game (id, colours, opening); for a
    knockout or Swiss tournament, of its first round and ``identity`` (the settings that decide
    the later rounds), since those rounds are not known yet.

    Time controls, commands and concurrency are deliberately left out: changing them does not
    change which games exist, so a resumed run may use them (the runner warns).
    """
    content: dict[str, object] = {
        "game": loaded.config.game,
        "options": loaded.game_options,
        "games": [[g.id, g.p1, g.p2, g.opening.start_position, g.opening.moves] for g in games],
    }
    if identity is not None:
        content["rounds"] = dict(identity)
    payload = msgspec.json.encode(content)
    return hashlib.sha256(payload).hexdigest()[:16]
