#!/usr/bin/env bash
# `make demo-league`: a league built from the sample bots, with two simulated nights.
#
#   night 1: greedy, random and alphabeta (searching 2 plies) play their placement games;
#   then a C bot is submitted as a folder with a build step (bot.toml), and alphabeta@2
#   (the full search) as a second version of alphabeta;
#   night 2: the newcomers are placed, the ratings over both nights are stored, and the league
#   report (DIR/report.html) shows every version's rating and interval, the history of both
#   nights and the verdict on alphabeta@2 against alphabeta@1.
#
# Usage: examples/league/demo.sh [LEAGUE_DIR] (default runs/demo-league; made afresh).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
arena=${ARENA:-$here/.venv/bin/arena}
python=${PYTHON:-$here/.venv/bin/python}
league=${1:-runs/demo-league}

rm -rf "$league"
# Openings: the shipped book, examples/openings/dobutsu.pgn (the default; --openings FILE
# for another).
"$arena" league init "$league" --game dobutsu --tc 2+0.02 --concurrency 2 --max-plies 200 \
    --placement-opponents 2 --event "demo league"
# The verdict's H1 for bots hundreds of points apart (the default, +30, suits small changes
# and needs hundreds of games): the demo's one night of tests decides.
sed -i 's/^elo1 = 30$/elo1 = 200/' "$league/league.toml"

# Installed engines: a command, no folder to store (the sample bots import the project).
"$arena" league submit "$league" greedy --author samples -- "$python" "$here/sample_bots/greedy.py"
"$arena" league submit "$league" random --author samples -- \
    "$python" "$here/sample_bots/random_bot.py" --seed 1
"$arena" league submit "$league" alphabeta --author samples --option Depth=2 -- \
    "$python" "$here/sample_bots/alphabeta.py"
"$arena" league run "$league" --night night-1 --games 40 --plain

# A folder with its source and a bot.toml: copied into the league's store by hash, built once
# in the sandbox (no network), checked, then placed on night 2.
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
cp "$here/sample_bots/c/randbot.c" "$src/"
cat > "$src/bot.toml" <<'TOML'
cmd = ["./randbot", "7"]
build = ["cc", "-O2", "-std=c99", "-o", "randbot", "randbot.c"]
TOML
"$arena" league submit "$league" randbot-c --author samples "$src"
"$arena" league submit "$league" alphabeta --author samples -- \
    "$python" "$here/sample_bots/alphabeta.py"
"$arena" league run "$league" --night night-2 --games 60 --plain

"$arena" league bots "$league"
echo "demo league: open $league/report.html (or: $arena serve $league)"
