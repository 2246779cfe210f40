"""The error a person caused (bad config, bad path, bad argument): printed, never a traceback."""


class UserError(Exception):
    """Raised with a message that names what was wrong, where, and ideally the fix.

    The CLI prints ``arena: error: <message>`` and exits with status 2.
    """


class RunFailure(UserError):
    """A fault that stops the whole run, not one game: e.g. no cluster worker can play a bot.

    The runner stops feeding games, lets the running ones finish, and ``arena run`` exits
    with status 3 and this message, as for the machine's faults; resume plays the rest."""
