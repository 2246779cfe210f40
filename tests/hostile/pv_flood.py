"""Sends ``info depth 1 pv <about 200,000 moves>`` (just under the 1 MiB line cap) before every
move, then plays the first legal move: legal, but kept whole it fills the referee's memory."""

from _base import say, serve

LINE_BYTES = 1_000_000


def on_go(legal: list[str], moves: int) -> bool:
    move = legal[0]
    say("info depth 1 score cp 0 pv " + " ".join([move] * (LINE_BYTES // (len(move) + 1))))
    say("bestmove " + move)
    return True


serve(on_go)
