#!/bin/sh
# A shell bot that leaves a background child (sleep) in its process group, then plays the
# first legal move of every position. $1 is the tag carried by the child's command line.
tag=${1:-untagged}
echo "pid $$ pgid $$" >&2
sh -c "sleep 300; : $tag" &
echo "child $!" >&2
legal=""
while read -r cmd rest; do
    case "$cmd" in
        ugi) echo "id name shell-forker"; echo "ugiok" ;;
        isready) echo "readyok" ;;
        legal) legal=$rest ;;
        go) set -- $legal; echo "bestmove $1" ;;
        quit) exit 0 ;;
    esac
done
