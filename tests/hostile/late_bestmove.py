"""On its move number AFTER it thinks for 1.5 s in a thread, past any short clock, ignores
``stop``, and then sends ``bestmove zz99``: a late answer that must not be read as its move in
the next game. ``isready`` is answered at once meanwhile, as a searching engine does. Every
other ``go`` gets the first legal move at once."""

import threading
import time

from _base import say, serve

late_sent = threading.Event()
stalled = False


def late() -> None:
    time.sleep(1.5)
    say("bestmove zz99")
    late_sent.set()


def on_go(legal: list[str], moves: int) -> bool:
    global stalled
    if stalled:
        return False
    stalled = True
    threading.Thread(target=late, daemon=True).start()
    return True


serve(on_go)
late_sent.wait(5)
