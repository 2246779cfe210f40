"""The error a person caused (bad config, bad path, bad argument): printed, never a traceback."""


class UserError(Exception):
    """Raised with a message that names what was wrong, where, and ideally the fix.

    The CLI prints ``arena: error: <message>`` and exits with status 2.
    """
