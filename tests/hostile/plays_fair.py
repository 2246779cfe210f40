"""The control bot of the hostile suite: nothing hostile, the first legal move every time
(``_base.serve`` alone). Runs on any Python 3 without packages, so that a test can start it
with an interpreter of its own making (a private virtualenv, a shim). Standard library only."""

from _base import serve

serve()
