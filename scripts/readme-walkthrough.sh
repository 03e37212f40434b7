#!/usr/bin/env bash
# The README walk-through: README.md followed to the letter by a newcomer.
#
# Every ```sh block of README.md runs, line by line, in a private home
# (HOME, XDG_* and the socket are fresh directories) against a real daemon:
# the one the README's first block starts with `make run`. The walk-through
# plays the newcomer's second terminal: `make run`, `wakewheel daemon` and
# every line ending in & are started in the background, each in a process
# group of its own that is stopped at the end (the first daemon must come
# up and answer); a line ending in \ continues on the next;
# `make test` is not run (it is what runs this script). A line that exits
# non-zero fails the walk-through unless the line's own comment announces
# the status ("exits 124"). The README's own premises are provided first:
# a repository ~/src/app with the scripts/index and scripts/reconcile it
# names.
#
# Usage: scripts/readme-walkthrough.sh [README.md]   (bin/wakewheel built)
set -uo pipefail
shopt -s extglob
repo=$(cd "$(dirname "$0")/.." && pwd)
readme=${1:-$repo/README.md}
[ -x "$repo/bin/wakewheel" ] || { echo "readme walk-through: build bin/wakewheel first (make build)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ww-readme.XXXXXX")
# Go's caches stay where they are (make run builds); the user's home is new.
export GOPATH=$(go env GOPATH) GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE)
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_STATE_HOME=$work/home/.local/state
export XDG_RUNTIME_DIR=$work/run PATH=$repo/bin:$PATH WAKEWHEEL_LOG_FORMAT=json
unset $(env | sed -n 's/^\(WAKEWHEEL_[A-Z_]*\)=.*/\1/p' | grep -v WAKEWHEEL_LOG_FORMAT) 2>/dev/null
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR" "$work"
background=() # process groups started in the background (setsid)
cleanup() {
  for pid in "${background[@]}"; do kill -INT -- -"$pid" 2>/dev/null; done
  for pid in "${background[@]}"; do
    for _ in $(seq 1 100); do kill -0 -- -"$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- -"$pid" 2>/dev/null
  done
  rm -rf "$work"
}
trap cleanup EXIT

# The README's premises: a repository of the user's, with the commands it names.
app=$HOME/src/app
mkdir -p "$app/scripts"
printf '#!/bin/sh\ncat >/dev/null\n' >"$app/scripts/index"
printf '#!/bin/sh\nexit 0\n' >"$app/scripts/reconcile"
chmod 755 "$app/scripts/index" "$app/scripts/reconcile"
git -C "$app" init -q && git -C "$app" -c user.name=n -c user.email=n@n commit -q --allow-empty -m start

# Each block as a script of its own: every line followed by its check.
blocks=$work/blocks
mkdir -p "$blocks"
awk -v dir="$blocks" '
  /^```sh[[:space:]]*$/ { n++; f = sprintf("%s/%03d.sh", dir, n); inblock = 1; next }
  /^```/ && inblock { inblock = 0; close(f); next }
  inblock { print > f }
' "$readme"

fail=0 lines=0
answers() { "$repo/bin/wakewheel" status >/dev/null 2>&1; }
for block in "$blocks"/*.sh; do
  script=$work/run.sh
  {
    echo 'check() { if [ "$1" != "$2" ]; then echo "README walk-through: exit $1 (announced: $2): $3" >&2; echo FAILED >>"$WALK_FAILED"; fi; }'
    joined=""
    while IFS= read -r line || [ -n "$line" ]; do
      if [[ $line == *\\ ]]; then joined+="${line%\\} "; continue; fi # a command continued on the next line
      line="$joined$line" joined=""
      [ -z "${line// }" ] && continue
      cmd=${line%%#*}
      want=0
      if [[ $line =~ \#.*exits?\ (status\ )?([0-9]+) ]]; then want=${BASH_REMATCH[2]}; fi
      quoted=$(printf '%q' "$line")
      case "$cmd" in
        *"make test"*) echo "echo 'README walk-through: not run (it runs this walk-through): '$quoted" ;;
        *"make run"*|*"wakewheel daemon"*|*"&"*([[:space:]]))
          echo "echo \"README walk-through: in the background: \"$quoted"
          echo "setsid bash -c $(printf '%q' "${cmd%&}") >>\"$work/daemon.log\" 2>&1 & echo \$! >>\"$work/background\"" ;;
        *)
          echo "echo \"\$ \"$quoted"
          echo "$line"
          echo "check \$? $want $quoted" ;;
      esac
    done <"$block"
  } >"$script"
  : >"$work/background"
  ( cd "$repo" && WALK_FAILED=$work/failed bash "$script" ) 2>&1 | sed 's/^/  /'
  while read -r pid; do background+=("$pid"); done <"$work/background"
  if [ ${#background[@]} -gt 0 ] && ! answers; then
    for _ in $(seq 1 300); do answers && break; sleep 0.1; done
    answers || { echo "README walk-through: the daemon started by the README does not answer" >&2; cat "$work/daemon.log" >&2; exit 1; }
  fi
  lines=$((lines + $(grep -c '^check ' "$script")))
done
if [ -s "$work/failed" ]; then
  echo "README walk-through: $(wc -l <"$work/failed") of $lines commands failed (see above)" >&2
  exit 1
fi
echo "README walk-through: $lines commands of README.md ran as announced"
