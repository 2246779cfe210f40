"""A bot that plays legal moves from the ``legal`` line until it misbehaves on purpose.

Usage: ``misbehave.py MODE [AFTER]``: behave for AFTER moves (default 2), then:
  hang        never answer ``go``            -> time forfeit
  crash       exit with status 3             -> crash
  illegal     answer ``bestmove zz99``       -> illegal move
  garbage     answer ``hello there``         -> protocol error
  badutf8     answer bytes that are not UTF-8 -> protocol error
  longline    answer a 2 MiB line            -> protocol error
  none        answer ``bestmove (none)``     -> illegal move
Modes combine with '+'. Modes that act at once: ``nohandshake`` (never ``ugiok``),
``slowhandshake`` (sleeps 30 s first), ``noready`` (never ``readyok``), ``spawn`` (plays
normally but starts a grandchild that sleeps, to prove the process group is killed; its pid
goes to stderr), ``stubborn`` (ignores ``quit`` and SIGTERM). Standard library only.
"""

import signal
import subprocess
import sys
import time

modes = set(sys.argv[1].split("+"))  # e.g. "spawn+hang"
after = int(sys.argv[2]) if len(sys.argv) > 2 else 2


def send(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


if "slowhandshake" in modes:
    time.sleep(30)
if "stubborn" in modes:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if "spawn" in modes:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    print(f"grandchild {child.pid}", file=sys.stderr, flush=True)

legal: list[str] = []
moves_made = 0
for raw in sys.stdin:
    words = raw.split()
    if not words:
        continue
    cmd = words[0]
    if cmd == "ugi":
        if "nohandshake" in modes:
            continue
        send("id name misbehave-" + sys.argv[1])
        send("id author tests")
        send("ugiok")
    elif cmd == "isready":
        if "noready" not in modes:
            send("readyok")
    elif cmd == "legal":
        legal = words[1:]
    elif cmd == "go":
        if moves_made >= after:
            if "hang" in modes:
                continue
            if "crash" in modes:
                print("crashing on purpose", file=sys.stderr, flush=True)
                sys.exit(3)
            if "illegal" in modes:
                send("bestmove zz99")
                continue
            if "garbage" in modes:
                send("hello there")
                continue
            if "badutf8" in modes:
                sys.stdout.buffer.write(b"bestmove \xff\xfe\n")
                sys.stdout.flush()
                continue
            if "longline" in modes:
                send("info string " + "x" * (2 << 20))
                continue
            if "none" in modes:
                send("bestmove (none)")
                continue
        moves_made += 1
        send("info depth 1 score cp 0 nodes 1 string misbehave")
        send("bestmove " + legal[0])
    elif cmd == "quit" and "stubborn" not in modes:
        break
