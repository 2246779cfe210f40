#!/bin/sh
# Crashes at start, as a shell script: the interpreter itself is the bot's process.
echo "pid $$ pgid $$" >&2
exit 5
