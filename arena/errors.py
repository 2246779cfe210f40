"""The error a person caused (bad config, bad path, bad argument): printed, never a traceback."""


class UserError(Exception):
    """Raised with a message that names what was wrong, where, and ideally the fix.

    The CLI prints ``arena: error: <message>`` and exits with status 2.
    """


class RunFailure(UserError):
    """A fault that stops the whole run, not one game: e.g. no cluster worker can play a bot.

    The runner stops feeding games, lets the running ones finish, and ``arena run`` exits
    with status 3 and this message, as for the machine's faults; resume plays the rest."""


class ClusterLost(RunFailure):
    """The cluster's scheduler is gone: no game can be played or reported any more, so the run
    stops at once (exit status 3) with this one message; the same command, given a running
    scheduler, plays the rest."""


class DuplicateGameError(UserError):
    """Two records of one game id in one file. The schedule gives every game its own id, so a
    second record was forged or written twice; counting both would bias every rating. Resume
    (:func:`arena.rundir.journal.load`) and ``arena ratings`` refuse it with this one
    message."""

    def __init__(self, where: str, game_id: str, first: str) -> None:
        super().__init__(
            f"{where}: game {game_id} is already recorded at {first}: two records of one game, "
            "so one of them was forged or written twice. Compare the two lines, delete the "
            "wrong one by hand (keep a copy of the file), then run the same command again"
        )
